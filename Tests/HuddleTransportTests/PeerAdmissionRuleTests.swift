import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import NIOPosix
import Synchronization
import Testing

@Suite("Admission limits per address and in total")
struct PeerAdmissionRuleTests {
    @Test func limitsPerAddressAndInTotal() throws {
        let admission = PeerAdmission(maximumTotal: 6, maximumPerAddress: 4)
        let one = try SocketAddress(ipAddress: "10.0.0.1", port: 1)
        let two = try SocketAddress(ipAddress: "10.0.0.2", port: 1)
        var tickets = (0..<4).compactMap { _ in admission.admit(one) }
        #expect(tickets.count == 4)
        #expect(admission.admit(one) == nil)
        tickets += (0..<4).compactMap { _ in admission.admit(two) }
        #expect(tickets.count == 6)
        #expect(admission.pending == 6)
        tickets[0].release()
        tickets[0].release()
        #expect(admission.pending == 5)
        #expect(admission.admit(one) != nil)  // released at once: the ticket is dropped here
        #expect(admission.pending == 5)
        tickets.removeAll()
        #expect(admission.pending == 0)
    }
}
