import HuddleWire
import Testing

@Suite("PeerCloseReason")
struct PeerCloseReasonTests {
    @Test func unknownReasonsRoundTrip() {
        #expect(PeerCloseReason(rawValue: 200).rawValue == 200)
        #expect(PeerCloseReason.denied.description == "denied")
        #expect(PeerCloseReason(rawValue: 200).description == "reason 200")
    }
}
