import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// `docs/security.md` §5 C8: a flood of fake adverts cannot grow the peer table without bound or hide pinned
/// devices.
@Suite("Peer table limit", .timeLimit(.minutes(1)))
struct PeerTableLimitTests {
    /// An advert of a device that does not exist (random ID, nobody listening on the port).
    static func fakeAdvert(_ index: Int, serviceType: String) throws -> PeerAdvert {
        let device = try DeviceID(bytes: (0..<32).map { _ in UInt8.random(in: 0...255) })
        return PeerAdvert(
            serviceType: serviceType,
            peer: PeerID(rawValue: "fake\(index)"),
            displayName: "Fake \(index)",
            deviceID: device,
            mode: .peer,
            port: 9
        )
    }

    func foundNames(_ probe: SessionProbe) -> Set<String> {
        Set(
            probe.events.compactMap {
                if case .peerFound(let info) = $0 { return info.displayName }
                return nil
            }
        )
    }

    /// Advertises `known`, a peer already in the probe's table (so always let in), once more and waits until the
    /// session has handled it: until the probe has seen `known` found `times` times in all, this one included.
    /// (Counting from what the probe had seen before would be wrong when the probe lags behind the session.) The
    /// directory hands adverts on in order, so every advert made before has been handled too: what the session did
    /// with them can be checked then. The registration is withdrawn when `scope` ends.
    static func settled(
        _ probe: SessionProbe,
        readvertising known: PeerAdvert,
        times: Int,
        in directory: InMemoryPeerDirectory,
        scope: TestScope
    ) async throws -> Bool {
        func isKnown(_ event: PeerSessionEvent) -> Bool {
            if case .peerFound(let info) = event { info.id == known.peer } else { false }
        }
        let again = try await directory.advertise(known)
        scope.onExit { await again.withdraw() }
        return await probe.recorder.count(atLeast: times, where: isKnown)
    }

    @Test func floodFillsTheTableToItsLimitGonePeersMakeRoomPinnedDevicesAlwaysGetIn() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let directory = InMemoryPeerDirectory()
            let probe = try #require(
                try await scope.sessions(["Ada"], directory: directory) {
                    network.configure(&$0)
                    $0.maximumKnownPeers = 8
                }.first
            )
            let type = probe.session.serviceType
            var registrations: [any PeerDirectoryRegistration] = []
            let fakes = try (0..<12).map { try Self.fakeAdvert($0, serviceType: type) }
            for fake in fakes { registrations.append(try await directory.advertise(fake)) }
            // Fake 7 is the last the table took, and it stays until the end.
            #expect(try await Self.settled(probe, readvertising: fakes[7], times: 2, in: directory, scope: scope))
            #expect(await probe.session.ignoredAdverts == 4)
            #expect(self.foundNames(probe) == Set((0..<8).map { "Fake \($0)" }))
            #expect(await probe.session.peers(in: .available).count == 8)

            // Two of the known peers go away: their places go to the next newcomers.
            await registrations[0].withdraw()
            await registrations[1].withdraw()
            #expect(await probe.session.peers(in: .available).count <= 8)
            registrations.append(try await directory.advertise(Self.fakeAdvert(12, serviceType: type)))
            registrations.append(try await directory.advertise(Self.fakeAdvert(13, serviceType: type)))
            #expect(await probe.found(named: "Fake 12") != nil)
            #expect(await probe.found(named: "Fake 13") != nil)

            // The table is full again, but a pinned device is never kept out.
            var pinned = try Self.fakeAdvert(14, serviceType: type)
            pinned.displayName = "Bob"
            try probe.session.trustStore.set(.verified, for: pinned.deviceID, displayName: "Bob")
            registrations.append(try await directory.advertise(pinned))
            #expect(await probe.found(named: "Bob") != nil)
            registrations.append(try await directory.advertise(Self.fakeAdvert(15, serviceType: type)))
            #expect(try await Self.settled(probe, readvertising: fakes[7], times: 3, in: directory, scope: scope))
            #expect(await probe.session.ignoredAdverts == 5)
            #expect(!foundNames(probe).contains("Fake 15"))
            for registration in registrations { await registration.withdraw() }
        }
    }

    /// A peer that was connected keeps its place (and with it the count of its messages that arrived) for the
    /// redelivery window after it leaves: forgetting it sooner would let messages it sends again arrive twice.
    @Test(arguments: [(Duration.seconds(120), false), (Duration.zero, true)])
    func aPeerThatJustLeftIsNotForgottenWithinTheRedeliveryWindow(window: Duration, forgotten: Bool) async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let directory = InMemoryPeerDirectory()
            let probes = try await scope.sessions(["Ada", "Bob"], directory: directory) {
                network.configure(&$0)
                $0.trustsOnFirstUse = true
                $0.maximumKnownPeers = 2
                $0.redeliveryWindow = window
            }
            let (ada, bob) = (probes[0], probes[1])
            let bobID = try #require(await ada.found(named: "Bob")).id
            try await ada.session.connect(to: bobID)
            await bob.session.stop()
            #expect(await ada.state(bobID, .disconnected))
            let type = ada.session.serviceType
            let fake0 = try Self.fakeAdvert(0, serviceType: type)
            let first = try await directory.advertise(fake0)
            // Bob withdrew his advert before this one was made: it reached Ada first.
            #expect(await ada.found(named: "Fake 0") != nil)
            #expect(await !ada.session.peers(in: .available).contains(bobID))
            // The table is full (Bob's record and Fake 0): Fake 1 gets in only if Bob's record may go.
            let second = try await directory.advertise(Self.fakeAdvert(1, serviceType: type))
            if forgotten {
                #expect(await ada.found(named: "Fake 1") != nil)
                #expect(await ada.session.ignoredAdverts == 0)
            } else {
                #expect(try await Self.settled(ada, readvertising: fake0, times: 2, in: directory, scope: scope))
                #expect(await ada.session.ignoredAdverts == 1)
                #expect(!foundNames(ada).contains("Fake 1"))
            }
            await first.withdraw()
            await second.withdraw()
        }
    }
}
