import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// A peer is the device TLS proved, not the instance its HELLO or an advert names (`docs/threat-model.md`, "A
/// peer is its device"): the review's F2, F4, F5 and F6, each with the attack it describes.
@Suite("Peers are bound to their devices", .timeLimit(.minutes(2)))
struct PeerBindingTests {
    static func hello(_ session: PeerSession, instance: String, name: String) -> PeerHello {
        PeerHello(
            versions: PeerHandshakeConfiguration().versions,
            sessionType: session.serviceType,
            instance: instance,
            displayName: name,
            mode: 0x70
        )
    }

    /// Three sessions that trust on first use, Ada paired with Bob and with Mallory, Ada the dialler of both; they
    /// are stopped when `scope` ends.
    static func adaPairedWithBobAndMallory(
        in scope: TestScope,
        on network: MemoryNetwork
    ) async throws -> (
        probes: [SessionProbe], directory: InMemoryPeerDirectory, bobID: PeerID, malloryID: PeerID, adaAtBob: PeerID
    ) {
        let directory = InMemoryPeerDirectory()
        let probes = try await scope.sessions(["Ada", "Bob", "Mallory"], directory: directory) {
            network.configure(&$0)
            $0.trustsOnFirstUse = true
            $0.reconnectsDroppedPeers = false
            $0.pairingBudget.interval = .zero
        }
        let (ada, bob) = (probes[0], probes[1])
        let bobID = try #require(await ada.found(named: "Bob")).id
        let malloryID = try #require(await ada.found(named: "Mallory")).id
        try await ada.session.connect(to: bobID)
        try await ada.session.connect(to: malloryID)
        let adaAtBob = try #require(await bob.found(named: "Ada")).id
        #expect(await bob.state(adaAtBob, .connected))
        let adaAtMallory = try #require(await probes[2].found(named: "Ada")).id
        #expect(await probes[2].state(adaAtMallory, .connected))
        return (probes, directory, bobID, malloryID, adaAtBob)
    }

    static func claim(_ event: PeerSessionEvent) -> (PeerID, DeviceID)? {
        if case .peerError(_, let error) = event, case .instanceClaimed(let peer, let device) = error.storage {
            return (peer, device)
        }
        return nil
    }

    /// F2: Mallory, paired with Ada, dials her claiming Bob's instance while Bob is away. Before, Ada attached
    /// Mallory to Bob's peer (Bob's name, Bob's redelivered messages, Bob's delivery counter) and accepted her
    /// without a prompt. Now both sides are told why she is refused, Bob's peer stays Bob's device, and Bob's
    /// next message arrives.
    @Test(.timeLimit(.minutes(2))) func aPairedDeviceCannotTakeOverAnotherPeersInstance() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let (probes, directory, bobID, _, adaAtBob) = try await Self.adaPairedWithBobAndMallory(
                in: scope,
                on: network
            )
            let (ada, bob, mallory) = (probes[0], probes[1], probes[2])
            await bob.session.disconnect(adaAtBob)
            #expect(await ada.state(bobID, .available))
            ada.clear()
            let address = try #require(await listeningAddress(of: ada.session, in: directory))
            let impostor = try await HandDialedConnection.dial(
                address,
                as: mallory.session.identity,
                hello: Self.hello(ada.session, instance: bobID.rawValue, name: "Bob"),
                pinned: [ada.session.identity.deviceID],
                over: network
            )
            #expect(await impostor.closed() == .some(.wire(.closedByPeer(reason: .instanceTaken))))
            let claim = try #require(await ada.wait(Self.claim))
            #expect(claim.0 == bobID && claim.1 == mallory.session.identity.deviceID)
            #expect(await ada.session.info(for: bobID)?.deviceID == bob.session.identity.deviceID)
            #expect(await ada.session.displayName(for: bobID) == "Bob")
            #expect(!ada.events.contains { if case .stateChanged(bobID, .connected) = $0 { true } else { false } })
            try await bob.session.connect(to: adaAtBob)
            try await bob.session.send(Array("hi".utf8), to: [adaAtBob])
            #expect(await ada.message(from: bobID, equalTo: "hi"))
        }
    }

    /// F5: an unpaired device whose key sorts below Ada's runs a pairing up to the reveal, claiming Bob's
    /// instance, while Ada and Bob are connected. Before, the duplicate tie-break closed Ada's connection to Bob
    /// and pointed Bob's peer at the newcomer before anyone decided anything. Now the newcomer is refused and the
    /// connection to Bob carries on.
    @Test(.timeLimit(.minutes(2))) func anUnpairedDeviceCannotTearDownATrustedConnection() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let (probes, directory, bobID, _, adaAtBob) = try await Self.adaPairedWithBobAndMallory(
                in: scope,
                on: network
            )
            let (ada, bob) = (probes[0], probes[1])
            var newcomer = try DeviceIdentity.ephemeral()
            while !(newcomer.deviceID < ada.session.identity.deviceID) { newcomer = try DeviceIdentity.ephemeral() }
            ada.clear()
            bob.clear()
            let address = try #require(await listeningAddress(of: ada.session, in: directory))
            let impostor = try await HandDialedConnection.dial(
                address,
                as: newcomer,
                hello: Self.hello(ada.session, instance: bobID.rawValue, name: "Carol"),
                over: network
            )
            #expect(await impostor.closed() == .some(.wire(.closedByPeer(reason: .instanceTaken))))
            #expect(await ada.wait(Self.claim)?.1 == newcomer.deviceID)
            try await ada.session.send(Array("still there?".utf8), to: [bobID])
            #expect(await bob.message(from: adaAtBob, equalTo: "still there?"))
            #expect(await ada.session.peers(in: .connected).contains(bobID))
            #expect(await ada.session.info(for: bobID)?.deviceID == bob.session.identity.deviceID)
            #expect(!bob.events.contains { if case .stateChanged(_, .disconnected) = $0 { true } else { false } })
            #expect(!ada.events.contains { if case .connectionRequest = $0 { true } else { false } })
        }
    }

    /// F6: pairing runs from devices nobody accepted leave nothing in the peer table; before, each one added a
    /// record under whatever instance it named (up to 16 KiB long), even after the pairing budget refused it.
    @Test(.timeLimit(.minutes(2))) func unacceptedPairingRunsLeaveNoPeers() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let directory = InMemoryPeerDirectory()
            let probes = try await scope.sessions(["Ada"], directory: directory) {
                network.configure(&$0)
                $0.pairingBudget.interval = .zero
                $0.pairingBudget.maximumFailures = 1000
            }
            let ada = probes[0]
            let address = try #require(await listeningAddress(of: ada.session, in: directory))
            for run in 0..<12 {
                ada.clear()
                let ghost = try await HandDialedConnection.dial(
                    address,
                    as: try DeviceIdentity.ephemeral(),
                    hello: Self.hello(ada.session, instance: "ghost-\(run)", name: "Ghost \(run)"),
                    over: network
                )
                let request = try #require(await ada.request(direction: .incoming))
                #expect(request.peer == PeerID(rawValue: "ghost-\(run)"))
                ghost.close()
                _ = await ada.wait { event -> Bool? in
                    if case .connectionRequestEnded(request.id, _) = event { return true }
                    return nil
                }
                #expect(await ada.session.info(for: PeerID(rawValue: "ghost-\(run)")) == nil)
            }
            for state in [PeerState.available, .connecting, .connected, .disconnected, .unavailable] {
                #expect(await ada.session.peers(in: state).isEmpty)
            }
            // An instance longer than an advert's is refused outright.
            let long = try await HandDialedConnection.dial(
                address,
                as: try DeviceIdentity.ephemeral(),
                hello: Self.hello(ada.session, instance: String(repeating: "x", count: 65), name: "Long"),
                over: network
            )
            #expect(await long.closed() == .some(.wire(.closedByPeer(reason: .protocolError))))
        }
    }

    /// F4: adverts are unauthenticated. One that names Bob's instance with another name and another device
    /// changes neither Bob's name nor the key Ada expects; before, Bob's lines showed as "Carol" and Ada's next
    /// connection to "Bob" was a first contact with the advertiser.
    @Test(.timeLimit(.minutes(2))) func advertsNeverChangeAVerifiedPeer() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let (probes, directory, bobID, _, adaAtBob) = try await Self.adaPairedWithBobAndMallory(
                in: scope,
                on: network
            )
            let (ada, bob, mallory) = (probes[0], probes[1], probes[2])
            let malloryAddress = try #require(await listeningAddress(of: mallory.session, in: directory))
            let fake = PeerAdvert(
                serviceType: ada.session.serviceType,
                peer: bobID,
                displayName: "Carol",
                deviceID: mallory.session.identity.deviceID,
                mode: .peer,
                port: malloryAddress.port!
            )
            let registration = try await directory.advertise(fake)
            scope.onExit { await registration.withdraw() }
            // Adverts reach the session in order: once a later one is found, the fake one has been handled.
            let marker = try await directory.advertise(PeerTableLimitTests.fakeAdvert(0, serviceType: fake.serviceType))
            scope.onExit { await marker.withdraw() }
            #expect(await ada.found(named: "Fake 0") != nil)
            #expect(await ada.session.ignoredAdverts == 1)
            #expect(await ada.session.displayName(for: bobID) == "Bob")
            #expect(await ada.session.info(for: bobID)?.deviceID == bob.session.identity.deviceID)
            // Away and back: the connection goes to Bob, with Bob's pinned key, not to the advertiser.
            await bob.session.disconnect(adaAtBob)
            #expect(await ada.state(bobID, .available))
            ada.clear()
            try await ada.session.connect(to: bobID, timeout: .seconds(20))
            #expect(await bob.state(adaAtBob, .connected))
            #expect(!ada.events.contains { if case .connectionRequest = $0 { true } else { false } })
            #expect(await ada.session.displayName(for: bobID) == "Bob")
        }
    }

    /// F4's second path: a device paired under a harmless name comes back calling itself "B\u{200B}ob". It is
    /// still shown under the name it was paired with, and Ada is told; before, it became a second "Bob" that
    /// `send --to Bob` could pick.
    @Test(.timeLimit(.minutes(2))) func aPairedDeviceCannotTakeALookalikeOfAnotherPairedName() async throws {
        try await withTestScope { _ in
            try await withTestScope { scope in
                let network = MemoryNetwork()
                let (probes, directory, _, _, _) = try await Self.adaPairedWithBobAndMallory(in: scope, on: network)
                let (ada, mallory) = (probes[0], probes[2])
                await mallory.session.stop()
                var configuration = PeerSessionConfiguration()
                configuration.listenHost = "127.0.0.1"
                network.configure(&configuration)
                let again = try await PeerSession(
                    sessionID: "TypingTogether",
                    displayName: "B\u{200B}ob",
                    configuration: configuration,
                    directory: directory,
                    identity: mallory.session.identity,
                    trustStore: mallory.session.trustStore
                )
                scope.stop(again)
                try await again.start()
                let probe = scope.adopt(SessionProbe(again))
                let adaThere = try #require(await probe.found(named: "Ada")).id
                try await again.connect(to: adaThere, timeout: .seconds(20))
                #expect(await ada.state(again.peerID, .connected))
                #expect(await ada.session.displayName(for: again.peerID) == "Mallory")
                let warning = await ada.wait { event -> String? in
                    if case .peerError(_, let error) = event, case .lookalikeName(_, let shown) = error.storage {
                        return shown
                    }
                    return nil
                }
                #expect(warning == "Mallory")
            }
        }
    }
}
