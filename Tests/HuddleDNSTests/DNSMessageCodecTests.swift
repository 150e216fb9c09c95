import HuddleDNS
import NIOCore
import Testing

@Suite("DNSMessage encoding and decoding")
struct DNSMessageCodecTests {
    static let owner: DNSName = "rr.example"

    static let allData: [DNSRData] = [
        .a(IPv4Address(192, 168, 1, 40)),
        .aaaa(IPv6Address("2001:db8::1:0:0:1")!),
        .ptr("My Printer._ipp._tcp.local"),
        .srv(priority: 1, weight: 2, port: 631, target: "printer-7.local"),
        .txt([Array("txtvers=1".utf8), [], Array("key=va=lue".utf8), [UInt8](repeating: 0xEE, count: 255)]),
        .txt([]),
        .nsec(
            next: "printer-7.local",
            types: [.a, .aaaa, .txt, .srv, DNSRecordType(rawValue: 258), .init(rawValue: 65535)]
        ),
        .nsec(next: "printer-7.local", types: []),
        .opt([0x00, 0x04, 0x00, 0x02, 0xAB, 0xCD]),
        .opt([]),
        .unknown(.hinfo, label("x86_64") + label("Linux")),
        .unknown(DNSRecordType(rawValue: 0xFF00), [0xDE, 0xAD, 0xBE, 0xEF]),
        .unknown(DNSRecordType(rawValue: 99), []),
    ]

    @Test(arguments: allData)
    func everyRecordTypeRoundTrips(data: DNSRData) throws {
        let isOPT = data.type == .opt
        let record = DNSRecord(
            name: isOPT ? .root : Self.owner,
            data: data,
            ttl: 4500,
            cacheFlush: !isOPT,
            recordClass: isOPT ? DNSClass(rawValue: 1440) : .internet
        )
        let message = DNSMessage.response(answers: [record])
        let bytes = message.wireBytes()
        let decoded = try decode(bytes)
        #expect(decoded == message)
        #expect(decoded.answers.first?.type == data.type)
        // The type field sits right after the owner name.
        let typeAt = 12 + record.name.wireLength
        #expect(Array(bytes[typeAt..<typeAt + 2]) == be16(data.type.rawValue))
        // Owner and data share no suffix here, so the data is written in canonical form.
        #expect(Array(bytes[(typeAt + 10)...]) == data.canonicalBytes)
        #expect(Array(bytes[(typeAt + 8)..<(typeAt + 10)]) == be16(UInt16(data.canonicalBytes.count)))
    }

    @Test func rdataLayoutPerType() {
        #expect(DNSRData.a(IPv4Address(10, 1, 2, 3)).canonicalBytes == [10, 1, 2, 3])
        #expect(
            DNSRData.aaaa(IPv6Address("fe80::1")!).canonicalBytes == [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [
                1
            ]
        )
        #expect(DNSRData.ptr("a.b").canonicalBytes == [1, 0x61, 1, 0x62, 0])
        #expect(
            DNSRData.srv(priority: 0x0102, weight: 0x0304, port: 0x1F90, target: "h.local").canonicalBytes
                == [0x01, 0x02, 0x03, 0x04, 0x1F, 0x90] + wireName("h", "local")
        )
        #expect(DNSRData.txt([Array("a=1".utf8), []]).canonicalBytes == [3, 0x61, 0x3D, 0x31, 0])
        // RFC 6763 §6.1: an empty TXT record is one zero byte, never zero-length data.
        #expect(DNSRData.txt([]).canonicalBytes == [0])
        #expect(DNSRData.txt([[]]).canonicalBytes == [0])
    }

    @Test func nsecBitmapsSpanSeveralWindows() throws {
        let types: Set<DNSRecordType> = [
            .a, .txt, .aaaa, .srv, DNSRecordType(rawValue: 258), DNSRecordType(rawValue: 0x8001),
            .init(rawValue: 65535),
        ]
        let data = DNSRData.nsec(next: "h", types: types)
        let window0: [UInt8] = [0x00, 0x05, 0x40, 0x00, 0x80, 0x08, 0x40]
        let window1: [UInt8] = [0x01, 0x01, 0x20]
        let window128: [UInt8] = [0x80, 0x01, 0x40]
        let window255: [UInt8] = [0xFF, 0x20] + [UInt8](repeating: 0, count: 31) + [0x01]
        #expect(data.canonicalBytes == wireName("h") + window0 + window1 + window128 + window255)
        let decoded = try decode(DNSMessage.response(answers: [DNSRecord(name: "h", data: data, ttl: 120)]).wireBytes())
        #expect(decoded.answers.first?.data == data)
    }

    @Test func unknownTypesKeepTheirBytes() throws {
        let rdata: [UInt8] = [0x03, 0x66, 0x6F, 0x6F, 0xC0, 0x0C, 0xFF]
        let packet =
            header(flags: 0x8400, answers: 2) + wireName("x", "local")
            + recordTail(type: 0x1234, rrclass: 0x8001, ttl: 7, rdata: rdata)
            + pointer(to: 12) + recordTail(type: 13, rdata: label("ARM") + label("Linux"))
        let message = try decode(packet)
        #expect(message.answers.count == 2)
        #expect(message.answers[0].data == .unknown(DNSRecordType(rawValue: 0x1234), rdata))
        #expect(message.answers[0].type.description == "TYPE4660")
        #expect(message.answers[0].cacheFlush)
        #expect(message.answers[0].ttl == 7)
        #expect(message.answers[1].data == .unknown(.hinfo, label("ARM") + label("Linux")))
        #expect(try decode(message.wireBytes()) == message)
        // Opaque data is copied verbatim, pointers and all.
        #expect(message.wireBytes().suffix(from: 12 + 9 + 10).prefix(7).elementsEqual(rdata))
    }

    @Test func headerFlagsRoundTrip() throws {
        var message = DNSMessage(id: 0xBEEF, isResponse: true, authoritative: true, truncated: true)
        message.opcode = 5
        message.rcode = 3
        let bytes = message.wireBytes()
        #expect(bytes == [0xBE, 0xEF, 0xAE, 0x03] + [UInt8](repeating: 0, count: 8))
        #expect(message.flags == 0xAE03)
        let decoded = try decode(bytes)
        #expect(decoded == message)
        #expect(decoded.id == 0xBEEF)
        #expect(decoded.isResponse && decoded.authoritative && decoded.truncated)
        #expect(decoded.opcode == 5)
        #expect(decoded.rcode == 3)
    }

    @Test(arguments: [0x0000, 0x8000, 0x7800, 0x0400, 0x0200, 0x0100, 0x0080, 0x0040, 0x0020, 0x0010, 0x000F, 0xFFFF])
    func everyHeaderFlagBitSurvives(flags: Int) throws {
        let bytes = header(id: 0x1234, flags: UInt16(flags))
        let message = try decode(bytes)
        #expect(message.flags == UInt16(flags))
        #expect(message.isResponse == (flags & 0x8000 != 0))
        #expect(message.opcode == UInt8((flags >> 11) & 0x0F))
        #expect(message.authoritative == (flags & 0x0400 != 0))
        #expect(message.truncated == (flags & 0x0200 != 0))
        #expect(message.rcode == UInt8(flags & 0x0F))
        #expect(message.otherFlags == UInt16(flags & 0x01F0))
        #expect(message.wireBytes() == bytes)
    }

    @Test func otherFlagsCannotForgeNamedBits() {
        var message = DNSMessage(isResponse: false)
        message.otherFlags = 0xFFFF
        #expect(message.flags == 0x01F0)
        message.otherFlags = 0x0100
        #expect(message.flags == 0x0100)
    }

    @Test func questionsKeepTheQUBit() throws {
        let message = DNSMessage.query([
            DNSQuestion(name: "_ipp._tcp.local", type: .ptr, unicastResponse: true),
            DNSQuestion(name: "printer-7.local", type: .any),
            DNSQuestion(name: "printer-7.local", type: .aaaa, unicastResponse: true, questionClass: .any),
        ])
        let bytes = message.wireBytes()
        // First question: name (17 bytes) at 12, then type PTR and class IN with the top bit.
        #expect(Array(bytes[29..<33]) == [0x00, 0x0C, 0x80, 0x01])
        // Second question: "printer-7" label, pointer to "local" at 22, type ANY, class IN.
        #expect(Array(bytes[33..<49]) == label("printer-7") + pointer(to: 22) + [0x00, 0xFF, 0x00, 0x01])
        // Third: the whole name is one pointer; class ANY (255) with the top bit.
        #expect(Array(bytes[49...]) == pointer(to: 33) + [0x00, 0x1C, 0x80, 0xFF])
        let decoded = try decode(bytes)
        #expect(decoded == message)
        #expect(decoded.questions.map(\.unicastResponse) == [true, false, true])
        #expect(decoded.questions.map(\.questionClass) == [.internet, .internet, .any])
    }

    @Test func cacheFlushBitIsSplitFromTheClass() throws {
        let packet =
            header(flags: 0x8400, answers: 2) + wireName("h", "local")
            + recordTail(type: 1, rrclass: 0x8001, rdata: [10, 0, 0, 1])
            + pointer(to: 12) + recordTail(type: 1, rrclass: 0x0001, rdata: [10, 0, 0, 2])
        let message = try decode(packet)
        #expect(message.answers.map(\.cacheFlush) == [true, false])
        #expect(message.answers.map(\.recordClass) == [.internet, .internet])
        #expect(
            message.answers[0].sameRecord(as: DNSRecord(name: "H.LOCAL", data: .a(IPv4Address(10, 0, 0, 1)), ttl: 1))
        )
        #expect(message.wireBytes() == packet)
    }

    @Test func samplesRoundTrip() throws {
        for message in [Sample.serviceResponse, Sample.knownAnswerQuery] {
            let bytes = message.wireBytes()
            let decoded = try decode(bytes)
            #expect(decoded == message)
            #expect(decoded.wireBytes() == bytes)
            #expect(try DNSMessageDecoder().decode(ByteBuffer(bytes: bytes)) == message)
        }
    }

    @Test func decodingNeedsOnlyTheReadableBytes() throws {
        var buffer = ByteBuffer(bytes: [0xAA, 0xBB, 0xCC])
        buffer.moveReaderIndex(forwardBy: 3)
        buffer.writeBytes(Sample.serviceResponse.wireBytes())
        #expect(try DNSMessageDecoder().decode(buffer) == Sample.serviceResponse)
    }
}
