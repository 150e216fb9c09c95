import HuddleTransport
import HuddleWire
import NIOCore
import Testing

/// A connection that has not proved anything holds a place among the unauthenticated ones (`PeerAdmission`,
/// `docs/security.md` §4.9, §5 C1) only until a deadline: TLS within `tlsHandshakeTimeout`, HELLO and the request
/// within `helloTimeout`, the users' decision within `decisionTimeout` or `pairingDecisionTimeout`. On embedded
/// channels, each is checked to the millisecond, and the place is given back when the connection is dropped.
@Suite("Admission deadlines on embedded channels")
struct AdmissionDeadlineEmbeddedTests {
    static let address = try! SocketAddress(ipAddress: "192.0.2.7", port: 40_000)

    /// A slowloris that never finishes TLS is dropped at `tlsHandshakeTimeout` (10 s), and its place comes back.
    @Test func tlsThatNeverCompletesIsDroppedAtTheDeadline() throws {
        let admission = PeerAdmission()
        let ticket = try #require(admission.admit(Self.address))
        let server = try EmbeddedConnection(try TransportPeer("bob"), role: .responder, admissionTicket: ticket)
        defer { server.finish() }
        server.advance(by: .milliseconds(9_999))
        #expect(server.isActive)
        #expect(admission.pending == 1)
        server.advance(by: .milliseconds(1))
        #expect(!server.isActive)
        #expect(server.closeReasons == [.tlsHandshakeTimedOut])
        #expect(admission.pending == 0)
        #expect(try server.sent().isEmpty)
    }

    /// After TLS, the responder waits `helloTimeout` (5 s) in all for the initiator's HELLO and its request: a
    /// peer that sends neither, or only the HELLO, is told `timed out` and dropped, and its place comes back.
    @Test(arguments: [false, true])
    func handshakeThatStallsIsDroppedAtTheHelloDeadline(sendsHello: Bool) throws {
        let admission = PeerAdmission()
        let ticket = try #require(admission.admit(Self.address))
        let link = try EmbeddedLink.authenticated(responderTicket: ticket)
        defer { link.finish() }
        let server = link.responder
        let hello = try link.initiator.sent()
        #expect(try server.sentControl().map(\.name) == ["HELLO"])
        // The responder's HELLO never reaches the initiator, which therefore never sends its request.
        if sendsHello { try server.receive(hello) }
        server.advance(by: .milliseconds(4_999))
        #expect(server.isActive)
        #expect(admission.pending == 1)
        server.advance(by: .milliseconds(1))
        #expect(try server.sentControl() == [.close(.timedOut)])
        let state = sendsHello ? "awaiting CONNECT_REQUEST" : "awaiting HELLO"
        #expect(server.closeReasons == [.wire(.handshakeTimedOut(state: state))])
        #expect(!server.isActive)
        #expect(admission.pending == 0)
    }

    /// The prompt gives the place back (a user may take their time), and the users have `decisionTimeout` (30 s)
    /// for a pinned peer, `pairingDecisionTimeout` (60 s) to compare a code: then the connection closes as timed
    /// out, and the peer hears it.
    @Test(arguments: [(true, 30), (false, 60)])
    func undecidedPromptIsDroppedAtTheDecisionDeadline(pinned: Bool, seconds: Int64) throws {
        let admission = PeerAdmission()
        let ticket = try #require(admission.admit(Self.address))
        let link = try EmbeddedLink.authenticated(pinned: pinned, responderTicket: ticket)
        defer { link.finish() }
        let server = link.responder
        try link.shuttle()
        let prompt = try #require(server.prompts.first)
        #expect((prompt.code == nil) == pinned)
        #expect(admission.pending == 0)

        server.advance(by: .milliseconds(seconds * 1000 - 1))
        #expect(server.isActive)
        #expect(server.closeReasons.isEmpty)
        server.advance(by: .milliseconds(1))
        let sent = try server.sent()
        #expect(EmbeddedLink.Traffic.control(sent) == [.close(.timedOut)])
        #expect(server.closeReasons == [.wire(.pairingTimedOut)])
        #expect(!server.isActive)
        try link.initiator.receive(sent)
        #expect(link.initiator.closeReasons == [.wire(.closedByPeer(reason: .timedOut))])
    }

    /// A decision in time beats the deadline: connected, and still connected long after it.
    @Test func decisionInTimeConnects() throws {
        let link = try EmbeddedLink.authenticated()
        defer { link.finish() }
        try link.shuttle()
        try link.advance(by: .seconds(29))
        link.responder.write(.decision(accept: true))
        try link.shuttle()
        #expect(link.responder.isConnected && link.initiator.isConnected)
        try link.advance(by: .seconds(120), step: .seconds(1))
        #expect(link.responder.isActive && link.initiator.isActive)
        #expect(link.responder.closeReasons.isEmpty && link.initiator.closeReasons.isEmpty)
    }
}
