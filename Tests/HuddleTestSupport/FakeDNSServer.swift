public import HuddleDNS
public import HuddleWideArea
import NIOConcurrencyHelpers
public import NIOCore

/// A DNS server in memory for wide-area tests (a ``DNSExchange``: pass it where the client would use UDP): it
/// answers each query with the records of its zone that match the question, and each UPDATE (RFC 2136) with the
/// RCODE `updateRCode` gives it, signed with its key when it has one (RFC 8945 §5.3); it applies no update, and keeps
/// every message it received, in order. Before an answer it can deliver datagrams of the test's making as if from
/// its own address, as a forger on the path would. The answers go through the client's own checks and choice
/// (``UnicastDNSClient/isAnswer(_:from:to:server:)``, ``AnswerChoice``); an attempt ends when they are all taken, so
/// nothing waits for a timer.
public final class FakeDNSServer: DNSExchange {
    /// The address the configuration names (TEST-NET-1, RFC 5737: nothing is sent there).
    public let address = try! SocketAddress(ipAddress: "192.0.2.53", port: 53)
    public let key: TSIGKey?
    private let zone: [DNSRecord]
    private let updateRCode: @Sendable (DNSMessage) -> UInt8
    private let forgeries: @Sendable (DNSMessage) -> [[UInt8]]
    private let messages = NIOLockedValueBox<[DNSMessage]>([])

    /// Makes one.
    ///
    /// - Parameters:
    ///   - zone: the records it answers queries with.
    ///   - key: the key it signs answers to UPDATEs with; nil for unsigned answers.
    ///   - updateRCode: the RCODE of the answer to an UPDATE (0, NOERROR, unless it says otherwise).
    ///   - forgeries: datagrams delivered before the answer to a request.
    public static func start(
        zone: [DNSRecord],
        key: TSIGKey?,
        updateRCode: @escaping @Sendable (DNSMessage) -> UInt8 = { _ in 0 },
        forgeries: @escaping @Sendable (DNSMessage) -> [[UInt8]] = { _ in [] }
    ) -> FakeDNSServer {
        FakeDNSServer(zone: zone, key: key, updateRCode: updateRCode, forgeries: forgeries)
    }

    private init(
        zone: [DNSRecord],
        key: TSIGKey?,
        updateRCode: @escaping @Sendable (DNSMessage) -> UInt8,
        forgeries: @escaping @Sendable (DNSMessage) -> [[UInt8]]
    ) {
        self.zone = zone
        self.key = key
        self.updateRCode = updateRCode
        self.forgeries = forgeries
    }

    /// Every message received, decoded, in arrival order.
    public var received: [DNSMessage] { messages.withLockedValue { $0 } }

    /// The UPDATEs received (opcode 5).
    public var updates: [DNSMessage] { received.filter { $0.opcode == 5 } }

    /// Nothing to close in memory; kept so that tests read as they would with a socket.
    public func close() async {}

    public func exchange(
        _ message: [UInt8],
        judging judge: @escaping @Sendable ([UInt8]) -> UnicastDNSClient.Verdict
    ) async throws -> [UInt8] {
        var choice = AnswerChoice()
        for answer in answers(to: message)
        where UnicastDNSClient.isAnswer(answer, from: address, to: message, server: address) {
            if let accepted = choice.take(answer, judge(answer)) { return accepted }
        }
        if let fallback = choice.fallback { return fallback }
        throw UnicastDNSClient.Failure.noAnswer(server: "\(address)", after: .zero)
    }

    /// What the server sends back to `message`, in order: the forgeries, then its answer; nothing to a message it
    /// cannot read or to a response.
    func answers(to message: [UInt8]) -> [[UInt8]] {
        guard let request = try? DNSMessageDecoder().decode(message), !request.isResponse else { return [] }
        messages.withLockedValue { $0.append(request) }
        var response = DNSMessage(id: request.id, isResponse: true, questions: request.questions)
        var bytes: [UInt8]
        if request.opcode == 5 {
            response.opcode = 5
            response.rcode = updateRCode(request)
            bytes = Array(response.encoded().readableBytesView)
            if let key, let mac = Self.requestMAC(of: request) {
                bytes = Self.sign(bytes, key: key, requestMAC: mac, timeSigned: 1_795_000_000)
            }
        } else {
            response.authoritative = true
            response.answers = zone.filter { record in request.questions.contains { $0.isAnswered(by: record) } }
            bytes = Array(response.encoded(compressSRVTarget: false).readableBytesView)
        }
        return forgeries(request) + [bytes]
    }

    /// `response` (a whole message, its ID the request's) signed as a server signs its answer to a request whose MAC
    /// was `requestMAC` (RFC 8945 §4.3.1, §5.3): the MAC covers the request's MAC, the message and the TSIG
    /// variables. With an error of 16 (BADSIG) or 17 (BADKEY) and `signed` false, the record carries no MAC, as
    /// RFC 8945 §5.3.2 has a server send those.
    public static func sign(
        _ response: [UInt8],
        key: TSIGKey,
        requestMAC: [UInt8],
        timeSigned: UInt64,
        error: UInt16 = 0,
        signed: Bool = true
    ) -> [UInt8] {
        let variables = TSIG.variables(key: key, timeSigned: timeSigned, error: error, other: [])
        let mac =
            signed
            ? TSIG.mac(key: key, over: TSIG.be16(UInt16(requestMAC.count)) + requestMAC + response + variables) : []
        var rdata = TSIG.canonical(key.algorithm) + TSIG.be48(timeSigned) + TSIG.be16(TSIG.fudge)
        rdata += TSIG.be16(UInt16(mac.count)) + mac + Array(response[0..<2]) + TSIG.be16(error) + TSIG.be16(0)
        var signedResponse = response
        TSIG.addToAdditionalCount(&signedResponse, 1)
        signedResponse += TSIG.canonical(key.name) + TSIG.be16(TSIG.type.rawValue) + TSIG.be16(DNSClass.any.rawValue)
        signedResponse += [0, 0, 0, 0] + TSIG.be16(UInt16(rdata.count)) + rdata
        return signedResponse
    }

    /// The MAC of a signed request: the MAC field of its last record, a TSIG record (RFC 8945 §4.2).
    public static func requestMAC(of request: DNSMessage) -> [UInt8]? {
        guard let record = request.additionals.last, record.type == TSIG.type, case .unknown(_, let rdata) = record.data
        else { return nil }
        var index = 0
        while index < rdata.count, rdata[index] != 0 { index += Int(rdata[index]) + 1 }
        let sizeAt = index + 1 + 6 + 2
        guard sizeAt + 2 <= rdata.count else { return nil }
        let size = Int(rdata[sizeAt]) << 8 | Int(rdata[sizeAt + 1])
        guard sizeAt + 2 + size <= rdata.count else { return nil }
        return Array(rdata[(sizeAt + 2)..<(sizeAt + 2 + size)])
    }
}
