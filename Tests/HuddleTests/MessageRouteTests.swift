import HuddleTransport
import NIOCore
import Testing

@testable import Huddle

/// The numbering of reliable messages on their own: the receiver's counter and the route that decides whether a
/// message goes straight to the events or through the session's inbox.
@Suite("Message numbering")
struct MessageRouteTests {
    @Test func theCounterAdmitsEachNumberOnceAndSkipsGaps() {
        let counter = DeliveryCounter()
        #expect(counter.admit(0))
        #expect(counter.admit(1))
        #expect(!counter.admit(1))
        #expect(!counter.admit(0))
        #expect(counter.admit(10))
        #expect(!counter.admit(9))
        #expect(counter.admit(11))
    }

    @Test func theRouteNumbersFromResumeAndGoesDirectOnlyWhenTheInboxIsEmpty() {
        let route = MessageRoute()
        route.resume(at: 5)
        guard case .inbox(5) = route.arrived() else {
            Issue.record("expected the inbox for 5")
            return
        }
        let counter = DeliveryCounter()
        #expect(counter.admit(5))
        let peer = PeerID(rawValue: "peer")
        route.open(to: peer, delivery: counter)
        guard case .inbox(6) = route.arrived() else {
            Issue.record("one still in the inbox: 6 follows it")
            return
        }
        route.leftInbox()
        route.leftInbox()
        #expect(counter.admit(6))
        guard case .direct(peer) = route.arrived() else {
            Issue.record("expected 7 to go direct")
            return
        }

        // A new connection from the same peer sends 6…8 again: 6 and 7 are dropped, 8 is new.
        let next = MessageRoute()
        next.open(to: peer, delivery: counter)
        next.resume(at: 6)
        guard case .duplicate = next.arrived(), case .duplicate = next.arrived() else {
            Issue.record("6 and 7 were handed on before")
            return
        }
        guard case .direct(peer) = next.arrived() else {
            Issue.record("8 is new")
            return
        }
    }
}
