public import NIOCore

/// Builds one DNS message section by section, with name compression (RFC 1035 §4.1.4) and a size cap.
///
/// Appending returns `false`, leaving the message unchanged, when an entry would push the message past
/// ``maxSize``; callers then start another packet (RFC 6762 §7.2, §17). Owner names and the names inside PTR,
/// SRV and NSEC data are compressed; names inside other data never are (RFC 6762 §18.14). Legacy unicast
/// replies must not compress SRV targets, so that is a switch.
public struct DNSMessageBuilder: Sendable {
    /// The largest message this builder produces, in bytes.
    public let maxSize: Int
    /// Whether SRV targets are compressed (not in legacy unicast replies, RFC 6762 §18.14).
    public var compressSRVTarget: Bool

    private var bytes: [UInt8]
    private var offsets: [[[UInt8]]: Int] = [:]
    private var counts: [UInt16] = [0, 0, 0, 0]
    private var section = 0

    /// Starts a message with the given header fields.
    public init(
        id: UInt16 = 0,
        flags: UInt16,
        maxSize: Int = 9000,
        compressSRVTarget: Bool = true
    ) {
        self.maxSize = maxSize
        self.compressSRVTarget = compressSRVTarget
        self.bytes = [UInt8(id >> 8), UInt8(id & 0xFF), UInt8(flags >> 8), UInt8(flags & 0xFF)]
        self.bytes += [UInt8](repeating: 0, count: 8)
    }

    /// The number of bytes written so far.
    public var size: Int { self.bytes.count }

    /// How many entries each section holds: questions, answers, authorities, additionals.
    public var sectionCounts: [Int] { self.counts.map(Int.init) }

    /// Whether anything but the header has been written.
    public var isEmpty: Bool { self.counts.allSatisfy { $0 == 0 } }

    /// Sets the TC bit in the header.
    public mutating func setTruncated(_ truncated: Bool) {
        if truncated { self.bytes[2] |= 0x02 } else { self.bytes[2] &= ~0x02 }
    }

    /// Appends a question; questions must come before records.
    public mutating func append(_ question: DNSQuestion) -> Bool {
        precondition(self.section == 0, "questions come before records")
        return self.transaction(section: 0) { builder in
            builder.writeName(question.name, compress: true)
            builder.write16(question.type.rawValue)
            builder.write16(question.questionClass.rawValue | (question.unicastResponse ? 0x8000 : 0))
        }
    }

    /// Appends a record to a section (1 answers, 2 authorities, 3 additionals); sections only move forward.
    public mutating func append(_ record: DNSRecord, section: DNSMessageSection) -> Bool {
        precondition(section.rawValue >= self.section, "sections are written in order")
        let appended = self.transaction(section: section.rawValue) { builder in builder.writeRecord(record) }
        if appended { self.section = section.rawValue }
        return appended
    }

    /// The finished message.
    public func finish() -> ByteBuffer {
        var result = self.bytes
        for (index, count) in self.counts.enumerated() {
            result[4 + index * 2] = UInt8(count >> 8)
            result[5 + index * 2] = UInt8(count & 0xFF)
        }
        return ByteBuffer(bytes: result)
    }

    private mutating func transaction(section: Int, _ body: (inout DNSMessageBuilder) -> Void) -> Bool {
        let savedBytes = self.bytes.count
        let savedOffsets = self.offsets
        body(&self)
        guard self.bytes.count <= self.maxSize, self.counts[section] < UInt16.max else {
            self.bytes.removeSubrange(savedBytes...)
            self.offsets = savedOffsets
            return false
        }
        self.counts[section] += 1
        return true
    }

    private mutating func write16(_ value: UInt16) { self.bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
    private mutating func write32(_ value: UInt32) {
        self.write16(UInt16(value >> 16))
        self.write16(UInt16(value & 0xFFFF))
    }

    private mutating func writeName(_ name: DNSName, compress: Bool) {
        let labels = name.labels
        for index in labels.indices {
            let suffix = Array(labels[index...])
            if compress, let target = self.offsets[suffix] {
                self.write16(0xC000 | UInt16(target))
                return
            }
            if compress, self.bytes.count < 0x3FFF { self.offsets[suffix] = self.bytes.count }
            self.bytes.append(UInt8(labels[index].count))
            self.bytes += labels[index]
        }
        self.bytes.append(0)
    }

    private mutating func writeRecord(_ record: DNSRecord) {
        self.writeName(record.name, compress: true)
        self.write16(record.type.rawValue)
        let isOPT = record.type == .opt
        self.write16(record.recordClass.rawValue | (record.cacheFlush && !isOPT ? 0x8000 : 0))
        self.write32(record.ttl)
        let lengthAt = self.bytes.count
        self.write16(0)
        switch record.data {
        case .ptr(let target):
            self.writeName(target, compress: true)
        case .srv(let priority, let weight, let port, let target):
            self.write16(priority)
            self.write16(weight)
            self.write16(port)
            self.writeName(target, compress: self.compressSRVTarget)
        case .nsec(let next, let types):
            self.writeName(next, compress: true)
            self.bytes += DNSRData.nsecBitmaps(types)
        default:
            self.bytes += record.data.canonicalBytes
        }
        let length = self.bytes.count - lengthAt - 2
        self.bytes[lengthAt] = UInt8(truncatingIfNeeded: length >> 8)
        self.bytes[lengthAt + 1] = UInt8(truncatingIfNeeded: length)
    }
}

/// A section of a DNS message that holds records.
public enum DNSMessageSection: Int, Sendable {
    case answer = 1
    case authority = 2
    case additional = 3
}

extension DNSMessage {
    /// Encodes the whole message, compressing names, with no size cap beyond the format's own.
    public func encoded(compressSRVTarget: Bool = true) -> ByteBuffer {
        var builder = DNSMessageBuilder(
            id: self.id,
            flags: self.flags,
            maxSize: .max,
            compressSRVTarget: compressSRVTarget
        )
        for question in self.questions { _ = builder.append(question) }
        for record in self.answers { _ = builder.append(record, section: .answer) }
        for record in self.authorities { _ = builder.append(record, section: .authority) }
        for record in self.additionals { _ = builder.append(record, section: .additional) }
        return builder.finish()
    }
}

extension DNSName {
    /// The name on the wire without compression (RFC 1035 §3.1).
    public var uncompressedBytes: [UInt8] {
        var out: [UInt8] = []
        for label in self.labels {
            out.append(UInt8(label.count))
            out += label
        }
        out.append(0)
        return out
    }
}

extension DNSRData {
    /// The data on the wire with no name compression: the form RFC 6762 §8.2 compares in probe tie-breaks.
    public var canonicalBytes: [UInt8] {
        func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
        switch self {
        case .a(let address): return address.bytes
        case .aaaa(let address): return address.bytes
        case .ptr(let name): return name.uncompressedBytes
        case .srv(let priority, let weight, let port, let target):
            return be16(priority) + be16(weight) + be16(port) + target.uncompressedBytes
        case .txt(let strings):
            // RFC 6763 §6.1: an empty TXT record is a single zero byte, never zero-length data.
            if strings.isEmpty { return [0] }
            return strings.flatMap { [UInt8(min($0.count, 255))] + $0.prefix(255) }
        case .nsec(let next, let types): return next.uncompressedBytes + Self.nsecBitmaps(types)
        case .opt(let bytes): return bytes
        case .unknown(_, let bytes): return bytes
        }
    }

    /// Type bitmaps in RFC 4034 §4.1.2 form: one block per 256-type window, trailing zero bytes dropped.
    static func nsecBitmaps(_ types: Set<DNSRecordType>) -> [UInt8] {
        var out: [UInt8] = []
        let byWindow = Dictionary(grouping: types) { UInt8($0.rawValue >> 8) }
        for window in byWindow.keys.sorted() {
            var bitmap = [UInt8](repeating: 0, count: 32)
            for type in byWindow[window]! {
                let low = Int(type.rawValue & 0xFF)
                bitmap[low / 8] |= 0x80 >> UInt8(low % 8)
            }
            while bitmap.last == 0 { bitmap.removeLast() }
            out += [window, UInt8(bitmap.count)] + bitmap
        }
        return out
    }
}
