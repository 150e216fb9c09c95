import HuddleDNS
import Testing

/// Wire-format rules of RFC 6762 §18 and RFC 6763 §6, checked byte by byte.
@Suite("RFC 6762 wire format")
struct RFC6762WireTests {
    @Test func responseHeaderHasIDZeroAndAA() {
        let bytes = DNSMessage.response(answers: []).wireBytes()
        #expect(bytes == header(flags: 0x8400))
        #expect(DNSMessage.query([]).wireBytes() == header())
    }

    /// §18.14: the PTR target is compressed against the owner name.
    @Test func ptrDataIsCompressed() {
        let message = DNSMessage.response(answers: [
            DNSRecord(name: "_ipp._tcp.local", data: .ptr("MyPrinter._ipp._tcp.local"), ttl: 4500)
        ])
        let expected =
            header(flags: 0x8400, answers: 1) + wireName("_ipp", "_tcp", "local")
            + recordTail(type: 12, ttl: 4500, rdata: label("MyPrinter") + pointer(to: 12))
        #expect(message.wireBytes() == expected)
    }

    @Test func compressionShrinksTheMessageAndKeepsNames() throws {
        let message = Sample.serviceResponse
        let bytes = message.wireBytes()
        let records = message.answers + message.additionals
        let uncompressed = 12 + records.reduce(0) { $0 + $1.name.wireLength + 10 + $1.data.canonicalBytes.count }
        #expect(bytes.count < uncompressed)
        // 7 owner names and 4 names in data, nearly all sharing suffixes: compression saves well over 150 bytes.
        #expect(uncompressed - bytes.count > 150)
        let decoded = try decode(bytes)
        #expect(decoded.answers.map(\.name) == message.answers.map(\.name))
        #expect(decoded.additionals.map(\.name) == message.additionals.map(\.name))
        #expect(decoded == message)
    }

    /// §18.14: legacy unicast replies must not compress SRV targets; the switch must leave the target whole.
    @Test func srvTargetCompressionCanBeTurnedOff() throws {
        let srv = DNSRecord(
            name: "web._http._tcp.local",
            data: .srv(priority: 0, weight: 0, port: 8080, target: "host.local"),
            ttl: 120,
            cacheFlush: true
        )
        let address = DNSRecord(name: "host.local", data: .a(IPv4Address(10, 0, 0, 7)), ttl: 120, cacheFlush: true)
        let message = DNSMessage.response(answers: [address, srv])

        // A at 12: "host" label, "local" at 17, terminator; 10 bytes of fields and 4 of address => SRV owner at 38.
        let prefix =
            header(flags: 0x8400, answers: 2) + wireName("host", "local")
            + recordTail(type: 1, rrclass: 0x8001, rdata: [10, 0, 0, 7])
            + label("web") + label("_http") + label("_tcp") + pointer(to: 17)
        let fixed: [UInt8] = be16(0) + be16(0) + be16(8080)

        let compressed = message.wireBytes()
        #expect(compressed == prefix + recordTail(type: 33, rrclass: 0x8001, rdata: fixed + pointer(to: 12)))

        let legacy = message.wireBytes(compressSRVTarget: false)
        #expect(legacy == prefix + recordTail(type: 33, rrclass: 0x8001, rdata: fixed + wireName("host", "local")))
        #expect(try decode(legacy) == message)
        #expect(try decode(compressed) == message)
    }

    /// §6.1: the restricted NSEC form, next name = owner (compressed), window 0 only.
    @Test func restrictedNSECLayout() throws {
        let message = DNSMessage.response(answers: [
            DNSRecord(name: "h.local", data: .nsec(next: "h.local", types: [.a]), ttl: 120, cacheFlush: true)
        ])
        let expected =
            header(flags: 0x8400, answers: 1) + wireName("h", "local")
            + recordTail(type: 47, rrclass: 0x8001, rdata: pointer(to: 12) + [0x00, 0x01, 0x40])
        #expect(message.wireBytes() == expected)
        #expect(try decode(expected) == message)
    }

    /// RFC 6763 §6.1: an empty TXT is a single zero byte; empty, zero-byte and one-empty-string TXT are alike.
    @Test func emptyTXTIsOneZeroByte() throws {
        let message = DNSMessage.response(answers: [DNSRecord(name: "t.local", data: .txt([]), ttl: 4500)])
        let bytes = message.wireBytes()
        #expect(
            bytes == header(flags: 0x8400, answers: 1) + wireName("t", "local")
                + recordTail(type: 16, ttl: 4500, rdata: [0])
        )
        #expect(try decode(bytes) == message)

        let zeroLength =
            header(flags: 0x8400, answers: 1) + wireName("t", "local") + recordTail(type: 16, ttl: 4500, rdata: [])
        #expect(try decode(zeroLength) == message)
        let oneEmptyString = DNSMessage.response(answers: [DNSRecord(name: "t.local", data: .txt([[]]), ttl: 4500)])
        #expect(oneEmptyString.wireBytes() == bytes)
    }

    @Test func txtStringsKeepBinaryValuesAndDuplicates() throws {
        let strings: [[UInt8]] = [
            Array("flag".utf8), Array("empty=".utf8), [0x76, 0x3D, 0x00, 0xFF, 0x3D], Array("flag".utf8),
        ]
        let rdata = strings.flatMap { [UInt8($0.count)] + $0 }
        let packet = header(flags: 0x8400, answers: 1) + wireName("t", "local") + recordTail(type: 16, rdata: rdata)
        let message = try decode(packet)
        #expect(message.answers.first?.data == .txt(strings))
        #expect(message.wireBytes() == packet)
    }

    /// §10.2 / RFC 6891 §6.1.2: OPT's class is the UDP payload size; its top bit is not cache-flush.
    @Test func optKeepsClassAsPayloadSize() throws {
        let options: [UInt8] = [0x00, 0x04, 0x00, 0x06, 1, 2, 3, 4, 5, 6]
        let packet =
            header(questions: 1, additionals: 2) + wireName("_companion-link", "_tcp", "local")
            + questionTail(type: 12, qclass: 0x8001)
            + [0] + recordTail(type: 41, rrclass: 1440, ttl: 0x1194, rdata: options)
            + [0] + recordTail(type: 41, rrclass: 0x9000, ttl: 0, rdata: [])
        let message = try decode(packet)
        #expect(message.questions.first?.unicastResponse == true)
        let opt = try #require(message.additionals.first)
        #expect(opt.name == .root)
        #expect(opt.type == .opt)
        #expect(opt.recordClass.rawValue == 1440)
        #expect(!opt.cacheFlush)
        #expect(opt.ttl == 0x1194)
        #expect(opt.data == .opt(options))
        #expect(message.additionals[1].recordClass.rawValue == 0x9000)
        #expect(!message.additionals[1].cacheFlush)
        #expect(message.wireBytes() == packet)

        // A cache-flush flag set by mistake on OPT never reaches the wire.
        var wrong = opt
        wrong.cacheFlush = true
        let encoded = DNSMessage.response(answers: [wrong]).wireBytes()
        #expect(Array(encoded[15..<17]) == be16(1440))
    }

    /// §18.14: decoders accept forward pointers (seen from Avahi).
    @Test func forwardPointersAreAccepted() throws {
        let message = try decode(Sample.forwardPointerPacket)
        #expect(message.questions.first?.name == "_http._tcp.local")
        #expect(message.answers.first?.name == "_http._tcp.local")
        #expect(message.answers.first?.data == .ptr("Web Server._http._tcp.local"))
        #expect(try decode(message.wireBytes()) == message)
    }

    /// §16: names arriving in any ASCII case match.
    @Test func decodedNamesCompareCaseInsensitively() throws {
        let packet =
            header(flags: 0x8400, answers: 1) + wireName("HOST", "LOCAL") + recordTail(type: 1, rdata: [1, 2, 3, 4])
        let record = try #require(try decode(packet).answers.first)
        #expect(record.name == "host.local")
        #expect(record.name.labels[0] == Array("HOST".utf8))
        #expect(DNSQuestion(name: "Host.Local", type: .a).isAnswered(by: record))
        #expect(DNSQuestion(name: "host.local", type: .any, questionClass: .any).isAnswered(by: record))
        #expect(!DNSQuestion(name: "host.local", type: .aaaa).isAnswered(by: record))
    }

    /// §6.1 and the Sonos case from python-zeroconf: an unparsable NSEC must not cost the whole message.
    @Test func badNSECIsSkippedAndTheRestKept() throws {
        let txt = label("path=/info") + label("vers=3")
        let packet =
            header(flags: 0x8400, answers: 4) + wireName("_sonos", "_tcp", "local")
            + recordTail(type: 12, ttl: 4500, rdata: label("Sonos-1") + pointer(to: 12))
            // NSEC whose next name points far past the end of the packet.
            + pointer(to: 41)
            + recordTail(type: 47, rrclass: 0x8001, rdata: pointer(to: 0x174) + [0x00, 0x04, 0x40, 0, 0, 8])
            // NSEC with a zero-length bitmap (RFC 4034 §4.1.2 requires 1–32).
            + pointer(to: 41) + recordTail(type: 47, rrclass: 0x8001, rdata: pointer(to: 41) + [0x00, 0x00])
            + pointer(to: 41) + recordTail(type: 16, rrclass: 0x8001, ttl: 4500, rdata: txt)
        let message = try decode(packet)
        #expect(message.answers.count == 2)
        #expect(message.answers.map(\.type) == [.ptr, .txt])
        #expect(message.answers[1].name == "Sonos-1._sonos._tcp.local")
        #expect(message.answers[1].data == .txt([Array("path=/info".utf8), Array("vers=3".utf8)]))
    }

    /// §17: 9000 bytes is the cap; a message of exactly that size decodes.
    @Test func largestMessageDecodes() throws {
        let filler = [UInt8](repeating: 0x5A, count: 9000 - 12 - 1 - 10)
        let packet = header(flags: 0x8400, answers: 1) + [0] + recordTail(type: 0xFF01, rdata: filler)
        #expect(packet.count == 9000)
        #expect(try decode(packet).answers.first?.data == .unknown(DNSRecordType(rawValue: 0xFF01), filler))
    }
}
