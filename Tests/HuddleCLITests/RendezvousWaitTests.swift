import Huddle
import HuddleForeign
import Testing

@testable import huddle

/// `huddle send --to NAME` waits for NAME between looks at the peers found: a Huddle peer found or changing state
/// ends the wait, and so does a foreign device found, passed on by the command's reader of the foreign services'
/// events, without waiting for a poll.
@Suite("Rendezvous: waiting for peers")
struct RendezvousWaitTests {
    let device = ForeignPeer(
        id: .init(protocol: .localSend, value: String(repeating: "AB", count: 32)),
        name: "Pixel",
        address: "10.0.0.2:53317"
    )

    @Test("a foreign device found ends the wait at once, and the next wait waits for the next one")
    func foreignFindEndsTheWait() async throws {
        let session = EventBroadcast<PeerSessionEvent>()
        let finds = EventBroadcast<ForeignPeer>()
        let changes = session.subscribe()
        let found = finds.subscribe()
        for _ in 0..<2 {
            let start = ContinuousClock.now
            async let waited: Void = Rendezvous.waitForChange(changes, orFind: found, until: start + .seconds(30))
            try await Task.sleep(for: .milliseconds(20))
            finds.yield(device)
            try await waited
            #expect(ContinuousClock.now - start < .seconds(10))
        }
    }

    @Test("events that change no peer do not end the wait; the deadline does")
    func otherEventsWaitForTheDeadline() async throws {
        let session = EventBroadcast<PeerSessionEvent>()
        let finds = EventBroadcast<ForeignPeer>()
        let changes = session.subscribe()
        let found = finds.subscribe()
        let start = ContinuousClock.now
        session.yield(.received([1, 2, 3], from: PeerID(rawValue: "bob")))
        try await Rendezvous.waitForChange(changes, orFind: found, until: start + .milliseconds(300))
        #expect(ContinuousClock.now - start >= .milliseconds(300))
    }

    @Test("a Huddle peer changing state ends the wait, with or without foreign finds to watch")
    func peerChangeEndsTheWait() async throws {
        for watchFinds in [true, false] {
            let session = EventBroadcast<PeerSessionEvent>()
            let finds = EventBroadcast<ForeignPeer>()
            let changes = session.subscribe()
            let found = watchFinds ? finds.subscribe() : nil
            let start = ContinuousClock.now
            async let waited: Void = Rendezvous.waitForChange(changes, orFind: found, until: start + .seconds(30))
            try await Task.sleep(for: .milliseconds(20))
            session.yield(.stateChanged(PeerID(rawValue: "bob"), .available))
            try await waited
            #expect(ContinuousClock.now - start < .seconds(10))
        }
    }
}
