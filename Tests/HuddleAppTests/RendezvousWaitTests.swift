import Huddle
import HuddleForeign
import Testing

@testable import HuddleApp

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
        // Subscribed already, so a find yielded before the wait begins is still seen. The deadline only bounds a
        // broken wait: the answer says what ended it.
        for _ in 0..<2 {
            finds.yield(device)
            let ended = try await Rendezvous.waitForChange(changes, orFind: found, until: .now + .seconds(60))
            #expect(ended, "the find, not the deadline, ended the wait")
        }
        let nothingNew = try await Rendezvous.waitForChange(changes, orFind: found, until: .now + .milliseconds(100))
        #expect(!nothingNew, "each find ends one wait")
    }

    @Test("events that change no peer do not end the wait; the deadline does")
    func otherEventsWaitForTheDeadline() async throws {
        let session = EventBroadcast<PeerSessionEvent>()
        let finds = EventBroadcast<ForeignPeer>()
        let changes = session.subscribe()
        let found = finds.subscribe()
        session.yield(.received([1, 2, 3], from: PeerID(rawValue: "bob"), .reliable))
        let ended = try await Rendezvous.waitForChange(changes, orFind: found, until: .now + .milliseconds(300))
        #expect(!ended, "the deadline, not the message, ended the wait")
    }

    @Test("a Huddle peer changing state ends the wait, with or without foreign finds to watch")
    func peerChangeEndsTheWait() async throws {
        for watchFinds in [true, false] {
            let session = EventBroadcast<PeerSessionEvent>()
            let finds = EventBroadcast<ForeignPeer>()
            let changes = session.subscribe()
            let found = watchFinds ? finds.subscribe() : nil
            session.yield(.stateChanged(PeerID(rawValue: "bob"), .available))
            let ended = try await Rendezvous.waitForChange(changes, orFind: found, until: .now + .seconds(60))
            #expect(ended, "the change, not the deadline, ended the wait (watching finds: \(watchFinds))")
        }
    }
}
