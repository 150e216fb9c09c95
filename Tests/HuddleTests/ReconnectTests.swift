import HuddleTestSupport
import HuddleTransport
import NIOCore
import Testing

@testable import Huddle

extension PeerSession {
    /// Closes the connection to `peer` without a goodbye, as a dropped network would.
    func dropConnectionForTesting(_ peer: PeerID) {
        guard let id = machine.connection(of: peer) else { return }
        io[id]?.channel?.close(promise: nil)
    }

    /// Whether a reconnect is waiting for any peer, or any dropped device is watched for.
    var isWatchingForDroppedPeers: Bool { !machine.reconnecting.isEmpty || !machine.droppedDevices.isEmpty }
}

@Suite("Reconnecting pinned peers", .timeLimit(.minutes(1)))
struct ReconnectTests {
    @Test func aDroppedConnectionIsMadeAgainWithoutAPrompt() async throws {
        try await withTestScope { scope in
            let probes = try await scope.sessions(["Ada", "Bob"])
            let (ada, bob) = (probes[0], probes[1])
            let bobID = try #require(await ada.found(named: "Bob")).id
            let connecting = Task { try await ada.session.connect(to: bobID, timeout: .seconds(45)) }
            let incoming = try #require(await bob.request(direction: .incoming))
            let outgoing = try #require(await ada.request(direction: .outgoing))
            await bob.session.accept(incoming)
            await ada.session.accept(outgoing)
            try await connecting.value
            let adaID = incoming.peer
            #expect(await bob.state(adaID, .connected))
            ada.clear()
            bob.clear()

            await ada.session.dropConnectionForTesting(bobID)
            #expect(await ada.state(bobID, .disconnected))
            #expect(await ada.state(bobID, .connected))
            #expect(await bob.state(adaID, .connected))
            let prompts = (ada.events + bob.events).filter {
                if case .connectionRequest = $0 { return true }
                return false
            }
            #expect(prompts.isEmpty)
            try await ada.session.send(Array("again".utf8), to: [bobID])
            #expect(await bob.message(from: adaID) == "again")
        }
    }

    @Test func aGoodbyeIsNotAnsweredWithAReconnect() async throws {
        try await withTestScope { scope in
            let probes = try await scope.sessions(["Ada", "Bob"]) { $0.trustsOnFirstUse = true }
            let (ada, bob) = (probes[0], probes[1])
            let bobID = try #require(await ada.found(named: "Bob")).id
            try await ada.session.connect(to: bobID)
            let adaID = try #require(
                await bob.wait { event -> PeerID? in
                    if case .stateChanged(let peer, .connected) = event { return peer }
                    return nil
                }
            )
            bob.clear()
            await bob.session.disconnect(adaID)
            #expect(await ada.state(bobID, .disconnected))
            #expect(await bob.state(adaID, .disconnected))
            // A reconnect would be scheduled in the same step that reports the disconnect (by whichever side
            // has the lower device ID): neither side has one waiting, so none can come later.
            for probe in [ada, bob] {
                #expect(await !probe.session.isWatchingForDroppedPeers)
            }
            #expect(await ada.session.peers(in: .connected).isEmpty)
            #expect(await bob.session.peers(in: .connected).isEmpty)
        }
    }
}
