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
}

@Suite("Reconnecting pinned peers", .timeLimit(.minutes(1)))
struct ReconnectTests {
    @Test func aDroppedConnectionIsMadeAgainWithoutAPrompt() async throws {
        try await withTestScope { scope in
            let (network, clock) = (MemoryNetwork(), ManualSessionClock())
            let probes = try await scope.sessions(["Ada", "Bob"]) {
                network.configure(&$0)
                clock.configure(&$0)
            }
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
            // Ada's own `connected` may still be on its way to its recorder: cleared through it, it cannot pass for
            // the reconnect's below.
            #expect(await ada.clear(through: bobID, .connected))
            bob.clear()

            await ada.session.dropConnectionForTesting(bobID)
            #expect(await ada.state(bobID, .disconnected))
            // On the clock now: each side's redelivery window (60 s) and the lower side's reconnect timer (0.5 s
            // ± 20 %). Past 0.6 s the reconnect is due; the windows are not.
            #expect(await clock.waitForSleepers(3))
            clock.advance(by: .milliseconds(600))
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
}
