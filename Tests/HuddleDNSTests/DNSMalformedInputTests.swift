import HuddleDNS
import NIOCore
import Testing

/// Hostile and broken packets, in the spirit of python-zeroconf's tests/test_protocol.py (our own bytes).
@Suite("Malformed DNS input")
struct DNSMalformedInputTests {
    // MARK: TTLs

    /// RFC 2181 §8: a TTL with its most significant bit set counts as zero; 2^31 − 1 is kept.
    @Test func ttlWithTheTopBitSetIsZero() throws {
        let records = [0xFFFF_1194, 0x8000_0000, 0x7FFF_FFFF].map { (ttl: UInt32) in
            DNSRecord(name: "a.local", data: .a(IPv4Address(10, 0, 0, 1)), ttl: ttl)
        }
        let message = try decode(Array(DNSMessage.response(answers: records).encoded().readableBytesView))
        #expect(message.answers.map(\.ttl) == [0, 0, 0x7FFF_FFFF])
    }

    // MARK: Compression pointers

    @Test func selfPointerIsALoop() {
        let error = decodeError(header(questions: 1) + pointer(to: 12) + questionTail(type: 1))
        #expect(error?.code == .pointerLoop)
        #expect(error?.offset == 12)
    }

    @Test func twoPointersAtEachOtherAreALoop() {
        let error = decodeError(header(questions: 1) + pointer(to: 14) + pointer(to: 12) + questionTail(type: 1))
        #expect(error?.code == .pointerLoop)
        #expect(error.map { [12, 14].contains($0.offset) } == true)
    }

    @Test func loopThroughShortLabelsStopsAtTheHopLimit() {
        // "atk" then a pointer back to it: 33 hops come before 255 bytes (1 + 33 × 4 = 133).
        let error = decodeError(header(questions: 1) + label("atk") + pointer(to: 12) + questionTail(type: 1))
        #expect(error?.code == .pointerLoop)
        #expect(error?.offset == 16)
    }

    @Test func loopThroughLongLabelsStopsAt255Bytes() {
        let long = String(repeating: "a", count: 63)
        let error = decodeError(header(questions: 1) + label(long) + pointer(to: 12) + questionTail(type: 1))
        #expect(error?.code == .nameTooLong)
        #expect(error?.offset == 12)
    }

    @Test func recordsWhoseNamesPointAtEachOtherAreALoop() {
        // 12: "a1" + pointer to 31; 31: "b1" + pointer to 12.
        let packet =
            header(flags: 0x8400, answers: 2)
            + label("a1") + pointer(to: 31) + recordTail(type: 1, rdata: [192, 168, 0, 1])
            + label("b1") + pointer(to: 12) + recordTail(type: 1, rdata: [192, 168, 0, 2])
        #expect(packet[31] == 2)
        let error = decodeError(packet)
        #expect(error?.code == .pointerLoop)
        #expect(error.map { [15, 34].contains($0.offset) } == true)
    }

    @Test func circularNameInsidePTRData() {
        // The PTR target is a label followed by a pointer to itself (rdata starts at 12 + 30 + 10 = 52).
        let packet =
            header(flags: 0x8400, answers: 1) + wireName("_services", "_dns-sd", "_udp", "local")
            + recordTail(type: 12, ttl: 4500, rdata: label("_spotify-connect") + pointer(to: 52))
        let error = decodeError(packet)
        #expect(error?.code == .nameTooLong)
        #expect(error?.offset == 52)
    }

    @Test func pointerChainLongerThanTheLimit() throws {
        // 12: pointer to 18; 14: type and class; 18 → 20 → 22: "a".
        let packet =
            header(questions: 1) + pointer(to: 18) + questionTail(type: 1) + pointer(to: 20) + pointer(to: 22)
            + wireName("a")
        #expect(try decode(packet).questions.first?.name == "a")
        let error = decodeError(packet, limits: DNSDecodingLimits(maxPointerHops: 2))
        #expect(error?.code == .pointerLoop)
        #expect(error?.offset == 20)
    }

    @Test(arguments: [0x3FFF, 18, 100])
    func pointerOutOfRange(target: Int) {
        let packet = header(questions: 1) + pointer(to: target) + questionTail(type: 1)
        #expect(packet.count == 18)
        let error = decodeError(packet)
        #expect(error?.code == .pointerOutOfRange)
        #expect(error?.offset == 12)
    }

    @Test func pointerIntoTheHeaderIsOnlyNotACrash() throws {
        // Offset 4 holds the high byte of QDCOUNT (0), which reads as the root name.
        let message = try decode(header(questions: 1) + pointer(to: 4) + questionTail(type: 1))
        #expect(message.questions.first?.name == .root)
    }

    // MARK: Labels and names

    /// Length bytes 64–255 are label types 01/10 (RFC 6891 §5) or pointers; no label can exceed 63 bytes.
    @Test(arguments: [0x40, 0x41, 0x7F, 0x80, 0xBF])
    func reservedLabelTypes(lengthByte: Int) {
        let packet =
            header(questions: 1) + [UInt8(lengthByte)] + [UInt8](repeating: 0x61, count: 70) + [0]
            + questionTail(type: 1)
        let error = decodeError(packet)
        #expect(error?.code == .badLabelType)
        #expect(error?.offset == 12)
    }

    @Test func reservedLabelTypeAfterALabel() {
        let error = decodeError(header(questions: 1) + label("foo") + [0x80, 0x00] + questionTail(type: 1))
        #expect(error?.code == .badLabelType)
        #expect(error?.offset == 16)
    }

    @Test func nameOver255BytesThroughAPointerChain() {
        // Four questions, each a 63-byte label in front of the previous name: the fourth is 257 bytes.
        var packet = header(questions: 4)
        var previous: Int?
        for letter in ["a", "b", "c", "d"] {
            let start = packet.count
            packet += label(String(repeating: letter, count: 63))
            packet += previous.map { pointer(to: $0) } ?? [0]
            packet += questionTail(type: 12)
            previous = start
        }
        let error = decodeError(packet)
        #expect(error?.code == .nameTooLong)
        #expect(error?.offset == 12)
        // The first three questions are legal.
        var three = packet
        three[5] = 3
        #expect(throws: Never.self) { try decode(three) }
    }

    @Test func nameOver255BytesOfShortLabels() {
        // 1 + 64 × 4 = 257: the 64th "atk" label, at 12 + 63 × 4, is one too many.
        let packet =
            header(flags: 0x8400, answers: 1) + Array([[UInt8]](repeating: label("atk"), count: 80).joined()) + [0]
            + recordTail(type: 1, rdata: [192, 168, 208, 6])
        let error = decodeError(packet)
        #expect(error?.code == .nameTooLong)
        #expect(error?.offset == 264)
    }

    // MARK: Record data

    @Test func addressDataOfTheWrongSize() {
        let a = decodeError(header(answers: 1) + [0] + recordTail(type: 1, rdata: [1, 2, 3, 4, 5]))
        #expect(a?.code == .badRData)
        #expect(a?.offset == 23)
        let aaaa = decodeError(header(answers: 1) + [0] + recordTail(type: 28, rdata: [1, 2, 3, 4]))
        #expect(aaaa?.code == .badRData)
        #expect(aaaa?.offset == 23)
    }

    @Test func rdlengthLongerThanTheName() {
        let error = decodeError(header(answers: 1) + [0] + recordTail(type: 12, rdata: wireName("a", "local") + [0xFF]))
        #expect(error?.code == .badRDataLength)
        #expect(error?.offset == 32)
    }

    @Test func rdlengthShorterThanTheName() {
        let packet = header(answers: 1) + [0] + be16(12) + be16(1) + be32(120) + be16(3) + wireName("a", "local")
        let error = decodeError(packet)
        #expect(error?.code == .badRDataLength)
        #expect(error?.offset == 32)
    }

    @Test func rdlengthPastTheEndOfTheMessage() {
        let packet = header(answers: 1) + [0] + be16(1) + be16(1) + be32(120) + be16(10) + [1, 2, 3, 4]
        let error = decodeError(packet)
        #expect(error?.code == .badRDataLength)
        #expect(error?.offset == 21)
    }

    @Test func txtStringPastItsRecord() {
        // The string claims 5 bytes, the record has 2 more; the next record's bytes must not be borrowed.
        let packet =
            header(answers: 2) + [0] + recordTail(type: 16, rdata: [5, 0x61, 0x62])
            + [0] + recordTail(type: 1, rdata: [1, 2, 3, 4])
        #expect(decodeError(packet)?.code == .badRData)
    }

    @Test func srvDataTooShortOrTargetTooLong() {
        let short = decodeError(header(answers: 1) + [0] + recordTail(type: 33, rdata: [0, 0, 0, 0, 0, 80]))
        #expect(short?.code == .badRData)
        let packet =
            header(answers: 1) + [0] + be16(33) + be16(1) + be32(120) + be16(8) + [0, 0, 0, 0, 0, 80] + wireName("host")
        #expect(decodeError(packet)?.code == .badRDataLength)
    }

    // MARK: Sizes and counts

    @Test func sectionCountsOverTheLimit() {
        let answers = decodeError(header(answers: 257))
        #expect(answers?.code == .tooManyRecords)
        #expect(answers?.offset == 6)
        let additionals = decodeError(header(additionals: 0xFFFF))
        #expect(additionals?.code == .tooManyRecords)
        #expect(additionals?.offset == 10)
        let questions =
            header(questions: 3) + [0] + questionTail(type: 1) + [0] + questionTail(type: 1) + [0]
            + questionTail(type: 1)
        #expect(throws: Never.self) { try decode(questions) }
        let limited = decodeError(questions, limits: DNSDecodingLimits(maxRecordsPerSection: 2))
        #expect(limited?.code == .tooManyRecords)
        #expect(limited?.offset == 4)
        // 256 is allowed; the empty body then ends early.
        #expect(decodeError(header(authorities: 256))?.code == .truncated)
    }

    @Test func packetsOver9000BytesAreRejectedBeforeParsing() {
        let error = decodeError([UInt8](repeating: 0, count: 9001))
        #expect(error?.code == .packetTooLarge)
        #expect(error?.offset == 0)
        let small = Sample.serviceResponse.wireBytes()
        let limited = decodeError(small, limits: DNSDecodingLimits(maxMessageSize: small.count - 1))
        #expect(limited?.code == .packetTooLarge)
        #expect(throws: Never.self) { try decode(small, limits: DNSDecodingLimits(maxMessageSize: small.count)) }
    }

    @Test func garbageInsertedIntoTheHeader() {
        let bytes = Sample.serviceResponse.wireBytes()
        let error = decodeError(Array(bytes[..<8]) + Array("deadbeef".utf8) + Array(bytes[8...]))
        #expect(error?.code == .tooManyRecords)
        #expect(error?.offset == 8)
    }

    @Test func shortHeaders() {
        for length in 0..<12 {
            let error = decodeError([UInt8](repeating: 0, count: length))
            #expect(error?.code == .truncated)
            #expect(error?.offset == length)
        }
        #expect(throws: Never.self) { try decode([UInt8](repeating: 0, count: 12)) }
    }

    @Test func errorsDescribeThemselves() {
        let error = DNSParseError(.pointerLoop, offset: 42, "loop")
        #expect(error.description == "DNS parse error pointerLoop at byte 42: loop")
        #expect(error == DNSParseError(.pointerLoop, offset: 0, "other"))
        #expect(error != DNSParseError(.truncated, offset: 42, "loop"))
    }
}
