import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// Peers at direct addresses (`PeerSessionConfiguration.peerAddresses`), between sessions on a ``MemoryNetwork``
/// that share no directory: only the address brings them together. The session clock is moved by hand, so each
/// new introduction comes when the test says.
@Suite("Peers at direct addresses", .timeLimit(.minutes(1)))
struct DirectPeersMemoryTests {
    let network = MemoryNetwork()
    let clock = ManualSessionClock()

    /// A session alone on its own directory, listening at `port`, accepting first contacts; with the key and the
    /// trust store of an earlier one to stand for that program started again.
    func session(
        _ scope: TestScope,
        _ name: String,
        port: Int = 0,
        addresses: [PeerAddress] = [],
        restarting earlier: PeerSession? = nil,
        directory: InMemoryPeerDirectory = InMemoryPeerDirectory()
    ) async throws -> SessionProbe {
        var configuration = PeerSessionConfiguration()
        network.configure(&configuration)
        clock.configure(&configuration)
        configuration.listenPort = port
        configuration.peerAddresses = addresses
        configuration.connectsToFoundPeers = true
        configuration.trustsOnFirstUse = true
        let session = try await PeerSession(
            sessionID: "TypingTogether",
            displayName: name,
            configuration: configuration,
            directory: directory,
            identity: try earlier?.identity ?? DeviceIdentity.ephemeral(),
            trustStore: earlier?.trustStore ?? TrustStore()
        )
        let probe = scope.adopt(SessionProbe(session))
        try await session.start()
        return probe
    }

    static func unreachable(_ event: PeerSessionEvent) -> (PeerAddress, PeerSessionError)? {
        guard case .addressUnreachable(let address, let error) = event else { return nil }
        return (address, error)
    }

    /// Bob cannot find Ada, and the dial order may pick either side: Ada, who knows Bob's address, dials.
    @Test func aPeerAtADirectAddressIsFoundAndConnectedByTheSideThatKnowsIt() async throws {
        try await withTestScope { scope in
            let bob = try await session(scope, "Bob", port: 47_471)
            let ada = try await session(scope, "Ada", addresses: [PeerAddress(host: "127.0.0.1", port: 47_471)])
            let (adaID, bobID) = (ada.session.peerID, bob.session.peerID)
            let found = try #require(await ada.found(named: "Bob"))
            #expect(found.id == bobID)
            #expect(found.deviceID == bob.session.identity.deviceID)
            #expect(await ada.state(bobID, .connected))
            #expect(await bob.state(adaID, .connected))
            try await ada.session.send(Array("over the router".utf8), to: [bobID])
            #expect(await bob.message(from: adaID) == "over the router")
            try await bob.session.send(Array("and back".utf8), to: [adaID])
            #expect(await ada.message(from: bobID) == "and back")
            // The introduction left no trace on Bob's side: no request ended, no error.
            #expect(
                !bob.events.contains {
                    switch $0 {
                    case .connectionRequestEnded, .peerError: true
                    default: false
                    }
                }
            )
        }
    }

    /// Nothing listens at the address yet: the failure is told once, and the next introduction, a second later on
    /// the session clock, finds the peer that has started there since.
    @Test func anAddressThatDoesNotAnswerIsToldOnceAndTriedAgain() async throws {
        try await withTestScope { scope in
            let address = PeerAddress(host: "127.0.0.1", port: 47_472)
            let asleep = clock.sleeperCount
            let ada = try await session(scope, "Ada", addresses: [address])
            let (told, error) = try #require(await ada.wait(Self.unreachable))
            #expect(told == address)
            #expect(error.connectionError == .connectFailed("[IPv4]127.0.0.1:47472: nobody listens there"))
            let bob = try await session(scope, "Bob", port: 47_472)
            // Ada's loop at the address waits on the clock.
            #expect(await clock.waitForSleepers(asleep + 1))
            clock.advance(by: .seconds(1))
            #expect(try #require(await ada.found(named: "Bob")).id == bob.session.peerID)
            #expect(await ada.state(bob.session.peerID, .connected))
            #expect(ada.events.compactMap(Self.unreachable).count == 1)
        }
    }

    /// Bob restarts as a new instance at the same address: once his connection is gone, Ada looks again at once
    /// and finds the new instance, and the old one is lost.
    @Test func aPeerThatRestartsIsFoundAgainAsItsNewInstance() async throws {
        try await withTestScope { scope in
            let address = PeerAddress(host: "127.0.0.1", port: 47_473)
            let bob = try await session(scope, "Bob", port: 47_473)
            let ada = try await session(scope, "Ada", addresses: [address])
            let oldID = bob.session.peerID
            // Both sides connected, so both pinned the other: the restarted Bob knows Ada.
            #expect(await ada.state(oldID, .connected))
            #expect(await bob.state(ada.session.peerID, .connected))
            await bob.stop()
            #expect(await ada.state(oldID, .disconnected))
            let newBob = try await session(scope, "Bob", port: 47_473, restarting: bob.session)
            // Ada's loop at the address waits on the clock.
            #expect(await clock.waitForSleepers(1))
            clock.advance(by: .seconds(1))
            #expect(await ada.state(oldID, .unavailable))
            #expect(await ada.state(newBob.session.peerID, .connected))
        }
    }

    /// Ada and Bob pair nearby (one directory); Bob then starts again somewhere Ada is not found. He looks at the
    /// address he last reached her at, finds her device there, and connects without a code.
    @Test func aPairedDeviceNotFoundNearbyIsDialledWhereItWasLastReached() async throws {
        try await withTestScope { scope in
            let nearby = InMemoryPeerDirectory()
            let ada = try await session(scope, "Ada", port: 47_481, directory: nearby)
            let bob = try await session(scope, "Bob", directory: nearby)
            let adaID = ada.session.peerID
            // Both connect to what they find; one of them dials.
            #expect(await ada.state(bob.session.peerID, .connected))
            #expect(await bob.state(adaID, .connected))
            let kept = bob.session.trustStore.record(for: ada.session.identity.deviceID)?.addresses
            #expect(kept == ["127.0.0.1:47481"])
            await bob.stop()
            let movedBob = try await session(scope, "Bob", restarting: bob.session)
            let found = try #require(await movedBob.found(named: "Ada"))
            #expect(found.id == adaID && found.dialledAt == "127.0.0.1:47481")
            #expect(await movedBob.state(adaID, .connected))
            #expect(!movedBob.events.contains { if case .connectionRequest = $0 { true } else { false } })
            try await movedBob.session.send(Array("moved".utf8), to: [adaID])
            #expect(await ada.message(from: movedBob.session.peerID) == "moved")
        }
    }

    /// At an address remembered for a device, another device is no answer.
    @Test func anotherDeviceAtARememberedAddressIsNoAnswer() throws {
        let bob = try DirectAddressScheduleTests.advert("bob1")
        let expected = try DeviceID(bytes: Array(repeating: 1, count: 32))
        let entry = DirectPeers.Entry(address: PeerAddress(host: "10.1.2.3"), expected: expected, source: .remembered)
        guard case .failure(let error) = DirectPeers.answer(.success(bob), at: entry) else {
            Issue.record("another device was taken as the answer")
            return
        }
        #expect(error.connectionError == .peerIdentityMismatch(expected: expected, presented: bob.deviceID))
        let direct = DirectPeers.Entry(address: PeerAddress(host: "10.1.2.3"))
        #expect(try DirectPeers.answer(.success(bob), at: direct).get() == bob)
        var same = bob
        same.deviceID = expected
        #expect(try DirectPeers.answer(.success(same), at: entry).get() == same)
    }
}
