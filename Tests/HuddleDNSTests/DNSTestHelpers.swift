import HuddleDNS
import NIOCore
import Testing

// Helpers for writing packets byte by byte, so the tests state exactly what is on the wire.

/// A big-endian 16-bit field.
func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

/// A big-endian 32-bit field.
func be32(_ value: UInt32) -> [UInt8] { be16(UInt16(value >> 16)) + be16(UInt16(value & 0xFFFF)) }

/// A 12-byte DNS header (RFC 1035 §4.1.1).
func header(
    id: UInt16 = 0,
    flags: UInt16 = 0,
    questions: UInt16 = 0,
    answers: UInt16 = 0,
    authorities: UInt16 = 0,
    additionals: UInt16 = 0
) -> [UInt8] {
    be16(id) + be16(flags) + be16(questions) + be16(answers) + be16(authorities) + be16(additionals)
}

/// One label: its length byte, then its UTF-8 bytes (no terminator).
func label(_ text: String) -> [UInt8] {
    let bytes = Array(text.utf8)
    return [UInt8(bytes.count)] + bytes
}

/// An uncompressed name, ending with the root byte.
func wireName(_ labels: String...) -> [UInt8] { labels.flatMap(label) + [0] }

/// A compression pointer to `offset`.
func pointer(to offset: Int) -> [UInt8] { be16(0xC000 | UInt16(offset)) }

/// The fields of a question after its name.
func questionTail(type: UInt16, qclass: UInt16 = 1) -> [UInt8] { be16(type) + be16(qclass) }

/// The fields of a record after its owner name, RDLENGTH taken from `rdata`.
func recordTail(type: UInt16, rrclass: UInt16 = 1, ttl: UInt32 = 120, rdata: [UInt8]) -> [UInt8] {
    be16(type) + be16(rrclass) + be32(ttl) + be16(UInt16(rdata.count)) + rdata
}

extension DNSMessage {
    /// The encoded message as plain bytes.
    func wireBytes(compressSRVTarget: Bool = true) -> [UInt8] {
        Array(self.encoded(compressSRVTarget: compressSRVTarget).readableBytesView)
    }
}

/// Decodes bytes with the given limits.
func decode(_ bytes: [UInt8], limits: DNSDecodingLimits = DNSDecodingLimits()) throws -> DNSMessage {
    try DNSMessageDecoder(limits: limits).decode(bytes)
}

/// Expects decoding to throw a ``DNSParseError`` and returns it.
@discardableResult
func decodeError(
    _ bytes: [UInt8],
    limits: DNSDecodingLimits = DNSDecodingLimits(),
    sourceLocation: SourceLocation = #_sourceLocation
) -> DNSParseError? {
    #expect(throws: DNSParseError.self, sourceLocation: sourceLocation) {
        try DNSMessageDecoder(limits: limits).decode(bytes)
    }
}

/// Well-formed messages used by several suites.
enum Sample {
    static let serviceType: DNSName = "_ipp._tcp.local"
    static let host: DNSName = "printer-7.local"
    static let instance: DNSName = try! serviceType.prepending(label: "My.Printer (Küche) 打印机")

    /// A complete DNS-SD answer: PTR, SRV, TXT, A, AAAA and NSEC records.
    static var serviceResponse: DNSMessage {
        let txt: [[UInt8]] = [
            Array("txtvers=1".utf8), Array("flag".utf8), Array("empty=".utf8), [0x62, 0x3D, 0x00, 0xFF],
        ]
        return DNSMessage.response(
            answers: [
                DNSRecord(name: serviceType, data: .ptr(instance), ttl: 4500),
                DNSRecord(
                    name: instance,
                    data: .srv(priority: 0, weight: 0, port: 631, target: host),
                    ttl: 120,
                    cacheFlush: true
                ),
                DNSRecord(name: instance, data: .txt(txt), ttl: 4500, cacheFlush: true),
            ],
            additionals: [
                DNSRecord(name: host, data: .a(IPv4Address(192, 168, 1, 40)), ttl: 120, cacheFlush: true),
                DNSRecord(name: host, data: .aaaa(IPv6Address("fe80::1c2:3ff:fe04:506")!), ttl: 120, cacheFlush: true),
                DNSRecord(name: host, data: .nsec(next: host, types: [.a, .aaaa]), ttl: 120, cacheFlush: true),
                DNSRecord(
                    name: instance,
                    data: .nsec(next: instance, types: [.txt, .srv]),
                    ttl: 4500,
                    cacheFlush: true
                ),
            ]
        )
    }

    /// A QU query with a known answer and an Apple-style OPT record (EDNS0 Owner option).
    static var knownAnswerQuery: DNSMessage {
        var message = DNSMessage.query(
            [
                DNSQuestion(name: serviceType, type: .ptr, unicastResponse: true),
                DNSQuestion(name: instance, type: .any),
            ],
            knownAnswers: [DNSRecord(name: serviceType, data: .ptr(instance), ttl: 3000)]
        )
        let owner: [UInt8] =
            [0x00, 0x04, 0x00, 0x0E, 0x00, 0x64] + [
                0x7A, 0x7B, 0x8A, 0x36, 0x9C, 0x7A, 0x46, 0x84, 0x2C, 0xCA, 0x51, 0xFF,
            ]
        message.additionals = [
            DNSRecord(name: .root, data: .opt(owner), ttl: 0x1194, recordClass: DNSClass(rawValue: 1440))
        ]
        return message
    }

    /// A hand-made response whose question uses a forward compression pointer into the answer.
    static var forwardPointerPacket: [UInt8] {
        // 12: question name = pointer to 18 (forward), type PTR, class IN; 18: the answer's owner name.
        header(flags: 0x8400, questions: 1, answers: 1) + pointer(to: 18) + questionTail(type: 12)
            + wireName("_http", "_tcp", "local")
            + recordTail(type: 12, ttl: 4500, rdata: label("Web Server") + pointer(to: 18))
    }
}
