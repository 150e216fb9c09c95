import HuddleTestSupport
import HuddleTransport
import NIOCore
import Testing

@testable import Huddle

extension PeerSession {
    /// Closes the connection to `peer` without a goodbye, as a dropped network would.
    func dropConnectionForTesting(_ peer: PeerID) {
        guard let id = peers[peer]?.connection else { return }
        connections[id]?.channel?.close(promise: nil)
    }
}

@Suite("Reconnecting pinned peers")
struct ReconnectTests {
    @Test func aDroppedConnectionIsMadeAgainWithoutAPrompt() async throws {
        let probes = try await makeSessions(["Ada", "Bob"])
        let (ada, bob) = (probes[0], probes[1])
        let bobID = try #require(await ada.found(named: "Bob")).id
        let connecting = Task { try await ada.session.connect(to: bobID, timeout: .seconds(10)) }
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
        #expect(await ada.state(bobID, .connected, seconds: 10))
        #expect(await bob.state(adaID, .connected, seconds: 10))
        let prompts = (ada.events + bob.events).filter {
            if case .connectionRequest = $0 { return true }
            return false
        }
        #expect(prompts.isEmpty)
        try await ada.session.send(Array("again".utf8), to: [bobID])
        #expect(await bob.message(from: adaID) == "again")
        for probe in probes { await probe.session.stop() }
    }

    @Test func aGoodbyeIsNotAnsweredWithAReconnect() async throws {
        let probes = try await makeSessions(["Ada", "Bob"]) { $0.trustsOnFirstUse = true }
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
        try await Task.sleep(for: .seconds(1.5))
        #expect(await ada.session.peers(in: .connected).isEmpty)
        #expect(await bob.session.peers(in: .connected).isEmpty)
        for probe in probes { await probe.session.stop() }
    }
}
