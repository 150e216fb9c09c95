import Huddle
import HuddleTransport
import HuddleWire
import Testing

/// `docs/security.md` §5 C8: a flood of fake adverts cannot grow the peer table without bound or hide pinned
/// devices.
@Suite("Peer table limit")
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

    /// Polls `condition` every 10 ms for up to 10 s (the session handles adverts on its own task).
    func eventually(_ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await condition()
    }

    @Test func floodFillsTheTableToItsLimitGonePeersMakeRoomPinnedDevicesAlwaysGetIn() async throws {
        let directory = InMemoryPeerDirectory()
        let probe = try #require(
            try await makeSessions(["Ada"], directory: directory) { $0.maximumKnownPeers = 8 }.first
        )
        let type = probe.session.serviceType
        var registrations: [any PeerDirectoryRegistration] = []
        for index in 0..<12 {
            registrations.append(try await directory.advertise(Self.fakeAdvert(index, serviceType: type)))
        }
        #expect(await eventually { await probe.session.ignoredAdverts == 4 })
        #expect(await eventually { self.foundNames(probe) == Set((0..<8).map { "Fake \($0)" }) })
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
        #expect(await eventually { await probe.session.ignoredAdverts == 5 })
        #expect(!foundNames(probe).contains("Fake 15"))
        for registration in registrations { await registration.withdraw() }
        await probe.session.stop()
    }
}
