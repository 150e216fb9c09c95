import HuddleDNS
import HuddleTestSupport
import NIOCore
import Testing

@testable import HuddleWideArea

/// A signed UPDATE's answer, through a DNS server in memory that has forged answers delivered as from its own
/// address before its own: an unsigned error is not believed while a signed answer may still come (RFC 8945
/// §5.3.2).
@Suite("Wide-area UPDATE answers", .timeLimit(.minutes(1)))
struct WideAreaUpdateTests {
    static let key = TSIGKey(name: "huddle-update.", secret: Array(repeating: 7, count: 32))
    static let update = DNSUpdate(
        zone: "example.",
        updates: [DNSRecord(name: "huddle-abc.example.", data: .a(IPv4Address(10, 0, 0, 1)), ttl: 120)]
    )

    /// The server's answer to `request` with a TSIG error, as a forger would make it: BADSIG unsigned, BADTIME
    /// signed with a key that is not the zone's.
    static func forged(_ request: DNSMessage) -> [[UInt8]] {
        var refusal = DNSMessage(id: request.id, isResponse: true, questions: request.questions)
        refusal.opcode = 5
        refusal.rcode = 9
        let bytes = Array(refusal.encoded().readableBytesView)
        let mac = FakeDNSServer.requestMAC(of: request) ?? []
        let forger = TSIGKey(name: key.name, secret: Array(repeating: 9, count: 32))
        return [
            FakeDNSServer.sign(bytes, key: key, requestMAC: mac, timeSigned: 1_795_000_000, error: 16, signed: false),
            FakeDNSServer.sign(bytes, key: forger, requestMAC: mac, timeSigned: 1_795_000_000, error: 18),
        ]
    }

    func send(through server: FakeDNSServer) async throws {
        let dns = WideAreaDNS(
            configuration: WideAreaConfiguration(domain: "example.", server: server.address, key: Self.key),
            exchange: server
        )
        let sending = Task { try await dns.send(Self.update, now: 1_795_000_000) }
        let outcome = try #require(await result(of: sending), "the UPDATE was answered")
        await server.close()
        try outcome.get()
    }

    @Test func forgedTSIGErrorsBeforeTheSignedAnswerDoNotMakeTheUpdateLookRefused() async throws {
        let server = FakeDNSServer.start(zone: [], key: Self.key, forgeries: Self.forged)
        try await send(through: server)
        #expect(server.updates.count == 1, "sent once")
    }

    /// With no answer that verifies (this server signs nothing), the first unsigned one is said once the attempt's
    /// time is up (in memory: once every answer is taken): an unsigned BADSIG is what a server sends for a wrong key.
    @Test func anUnsignedErrorAloneIsSaidAtTheEnd() async throws {
        let server = FakeDNSServer.start(zone: [], key: nil, forgeries: { [Self.forged($0)[0]] })
        await #expect(throws: WideAreaError.tsig(.unsignedRefusal(code: 16))) { try await send(through: server) }
    }
}
