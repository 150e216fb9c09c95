import HuddleDNS
import NIOCore
import Testing

@Suite("DNSMessageBuilder")
struct DNSMessageBuilderTests {
    static func txtRecord(_ index: Int, size: Int = 40) -> DNSRecord {
        DNSRecord(
            name: try! DNSName("_hap._tcp.local").prepending(label: "Bridge \(index)"),
            data: .txt([[UInt8](repeating: 0x61, count: size)]),
            ttl: 4500,
            cacheFlush: true
        )
    }

    @Test func startsWithAHeaderOnly() {
        let builder = DNSMessageBuilder(id: 0x0102, flags: 0x8400)
        #expect(builder.size == 12)
        #expect(builder.isEmpty)
        #expect(builder.sectionCounts == [0, 0, 0, 0])
        #expect(builder.maxSize == 9000)
        #expect(Array(builder.finish().readableBytesView) == header(id: 0x0102, flags: 0x8400))
    }

    @Test func sizesAndCountsTrackEveryAppend() throws {
        var builder = DNSMessageBuilder(flags: 0)
        #expect(builder.append(DNSQuestion(name: "a.local", type: .ptr)) == true)
        #expect(builder.size == 12 + 9 + 4)
        #expect(!builder.isEmpty)
        // The same name again is one pointer.
        #expect(builder.append(DNSQuestion(name: "a.local", type: .txt)) == true)
        #expect(builder.size == 25 + 2 + 4)
        let known = DNSRecord(name: "a.local", data: .ptr("b.a.local"), ttl: 4500)
        #expect(builder.append(known, section: .answer) == true)
        #expect(builder.append(known, section: .answer) == true)
        #expect(
            builder.append(
                DNSRecord(name: "a.local", data: .a(IPv4Address(1, 2, 3, 4)), ttl: 120),
                section: .additional
            ) == true
        )
        #expect(builder.sectionCounts == [2, 2, 0, 1])

        let bytes = Array(builder.finish().readableBytesView)
        #expect(bytes.count == builder.size)
        #expect(Array(bytes[4..<12]) == [0, 2, 0, 2, 0, 0, 0, 1])
        let message = try decode(bytes)
        #expect(message.questions.map(\.type) == [.ptr, .txt])
        #expect(message.answers == [known, known])
        #expect(message.additionals.count == 1)
    }

    @Test func fullBuilderRefusesAndStaysUnchanged() throws {
        var builder = DNSMessageBuilder(flags: 0x8400, maxSize: 300)
        var accepted: [DNSRecord] = []
        var refused = 0
        for index in 0..<20 {
            let before = builder.finish()
            let sizeBefore = builder.size
            let countsBefore = builder.sectionCounts
            if builder.append(Self.txtRecord(index), section: .answer) {
                accepted.append(Self.txtRecord(index))
            } else {
                refused += 1
                #expect(builder.size == sizeBefore)
                #expect(builder.sectionCounts == countsBefore)
                #expect(builder.finish() == before)
            }
            #expect(builder.size <= 300)
        }
        #expect(refused > 0)
        #expect(accepted.count >= 3)
        let message = try decode(Array(builder.finish().readableBytesView))
        #expect(message.answers == accepted)
        #expect(builder.sectionCounts == [0, accepted.count, 0, 0])
    }

    @Test func entryThatExactlyFillsTheMessageFits() {
        // 12 + "a.local" (9) + type and class (4) = 25.
        var builder = DNSMessageBuilder(flags: 0, maxSize: 25)
        #expect(builder.append(DNSQuestion(name: "a.local", type: .a)) == true)
        #expect(builder.size == 25)
        #expect(builder.append(DNSQuestion(name: "a.local", type: .aaaa)) == false)
        #expect(builder.sectionCounts == [1, 0, 0, 0])
    }

    /// A refused record must not leave its names behind as compression targets.
    @Test func refusedRecordLeavesNoCompressionTargets() throws {
        var builder = DNSMessageBuilder(flags: 0x8400, maxSize: 120)
        let big = DNSRecord(name: "big.example.local", data: .txt([[UInt8](repeating: 0x62, count: 200)]), ttl: 1)
        let small = DNSRecord(name: "big.example.local", data: .a(IPv4Address(10, 0, 0, 1)), ttl: 1)
        #expect(
            builder.append(DNSRecord(name: "host.local", data: .a(IPv4Address(10, 0, 0, 9)), ttl: 1), section: .answer)
                == true
        )
        #expect(builder.append(big, section: .answer) == false)
        #expect(builder.append(small, section: .answer) == true)
        let bytes = Array(builder.finish().readableBytesView)
        // "big" and "example" are written out, "local" points back at the first record.
        #expect(bytes.count == 12 + 12 + 14 + (4 + 8 + 2) + 14)
        let message = try decode(bytes)
        #expect(message.answers.last == small)
    }

    @Test func refusedLaterSectionDoesNotCloseEarlierOnes() throws {
        var builder = DNSMessageBuilder(flags: 0x8400, maxSize: 200)
        #expect(builder.append(Self.txtRecord(1), section: .answer) == true)
        #expect(builder.append(Self.txtRecord(2, size: 200), section: .additional) == false)
        #expect(builder.append(Self.txtRecord(3), section: .answer) == true)
        #expect(builder.sectionCounts == [0, 2, 0, 0])
        let message = try decode(Array(builder.finish().readableBytesView))
        #expect(message.answers == [Self.txtRecord(1), Self.txtRecord(3)])
    }

    @Test func setTruncatedTogglesTheTCBit() throws {
        var query = DNSMessageBuilder(flags: 0)
        #expect(query.append(DNSQuestion(name: "_hap._tcp.local", type: .ptr)) == true)
        query.setTruncated(true)
        var bytes = Array(query.finish().readableBytesView)
        #expect(bytes[2] == 0x02)
        #expect(bytes[3] == 0x00)
        #expect(try decode(bytes).truncated)
        query.setTruncated(false)
        bytes = Array(query.finish().readableBytesView)
        #expect(bytes[2] == 0x00)
        #expect(try !decode(bytes).truncated)

        var response = DNSMessageBuilder(flags: 0x8400)
        response.setTruncated(true)
        #expect(Array(response.finish().readableBytesView.prefix(4)) == [0, 0, 0x86, 0x00])
        let decoded = try decode(Array(response.finish().readableBytesView))
        #expect(decoded.truncated && decoded.authoritative && decoded.isResponse)
    }

    /// Known answers that do not fit go to the next packet, with TC set on all but the last (RFC 6762 §7.2).
    @Test func splittingKnownAnswersAcrossPackets() throws {
        let question = DNSQuestion(name: "_hap._tcp.local", type: .ptr)
        let knownAnswers = (0..<30).map { Self.txtRecord($0, size: 80) }
        var packets: [ByteBuffer] = []
        var builder = DNSMessageBuilder(flags: 0, maxSize: 1440)
        #expect(builder.append(question) == true)
        for record in knownAnswers where !builder.append(record, section: .answer) {
            builder.setTruncated(true)
            packets.append(builder.finish())
            builder = DNSMessageBuilder(flags: 0, maxSize: 1440)
            #expect(builder.append(record, section: .answer) == true)
        }
        packets.append(builder.finish())

        #expect(packets.count > 1)
        let messages = try packets.map { try DNSMessageDecoder().decode($0) }
        #expect(messages.map(\.truncated) == Array(repeating: true, count: packets.count - 1) + [false])
        #expect(messages.flatMap(\.answers) == knownAnswers)
        #expect(messages[0].questions == [question])
        #expect(packets.allSatisfy { $0.readableBytes <= 1440 })
    }

    @Test func encodedMatchesABuilderWithNoCap() {
        let message = Sample.serviceResponse
        var builder = DNSMessageBuilder(flags: message.flags)
        for record in message.answers { #expect(builder.append(record, section: .answer) == true) }
        for record in message.additionals { #expect(builder.append(record, section: .additional) == true) }
        #expect(Array(builder.finish().readableBytesView) == message.wireBytes())
    }
}
