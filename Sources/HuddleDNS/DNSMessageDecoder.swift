public import NIOCore

/// Limits that bound what a decoder accepts, so no input can make it crash, hang or over-allocate.
public struct DNSDecodingLimits: Sendable, Hashable {
    /// The largest message accepted. RFC 6762 §17 caps mDNS packets at 9000 bytes including the IP and UDP headers.
    public var maxMessageSize: Int
    /// The most records (or questions) in one section. A 9000-byte packet holds at most ~800 minimal records;
    /// 256 matches what other hardened stacks use and is far beyond what a real mDNS packet carries.
    public var maxRecordsPerSection: Int
    /// The most compression pointers followed while reading one name; a longer chain is treated as a loop.
    public var maxPointerHops: Int

    public init(maxMessageSize: Int = 9000, maxRecordsPerSection: Int = 256, maxPointerHops: Int = 32) {
        self.maxMessageSize = maxMessageSize
        self.maxRecordsPerSection = maxRecordsPerSection
        self.maxPointerHops = maxPointerHops
    }
}

/// Decodes DNS messages (RFC 1035 §4.1) with mDNS rules (RFC 6762 §18) and strict limits.
public struct DNSMessageDecoder: Sendable {
    public var limits: DNSDecodingLimits

    public init(limits: DNSDecodingLimits = DNSDecodingLimits()) { self.limits = limits }

    /// Decodes one whole message.
    ///
    /// - Throws: ``DNSParseError`` with the offset of the first bad byte.
    public func decode(_ buffer: ByteBuffer) throws -> DNSMessage {
        guard buffer.readableBytes <= self.limits.maxMessageSize else {
            throw DNSParseError(
                .packetTooLarge,
                offset: 0,
                "\(buffer.readableBytes) bytes (at most \(self.limits.maxMessageSize))"
            )
        }
        var reader = Reader(bytes: Array(buffer.readableBytesView), limits: self.limits)
        return try reader.readMessage()
    }

    /// Decodes one whole message from bytes.
    public func decode(_ bytes: [UInt8]) throws -> DNSMessage { try self.decode(ByteBuffer(bytes: bytes)) }
}

private struct Reader {
    let bytes: [UInt8]
    let limits: DNSDecodingLimits
    var offset = 0

    init(bytes: [UInt8], limits: DNSDecodingLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    func fail(_ code: DNSParseError.Code, _ message: String, at offset: Int? = nil) -> DNSParseError {
        DNSParseError(code, offset: offset ?? self.offset, message)
    }

    mutating func u8() throws -> UInt8 {
        guard self.offset < self.bytes.count else { throw self.fail(.truncated, "message ends inside a field") }
        defer { self.offset += 1 }
        return self.bytes[self.offset]
    }

    mutating func u16() throws -> UInt16 { UInt16(try self.u8()) << 8 | UInt16(try self.u8()) }
    mutating func u32() throws -> UInt32 { UInt32(try self.u16()) << 16 | UInt32(try self.u16()) }

    mutating func take(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= self.bytes.count - self.offset else {
            throw self.fail(.truncated, "needs \(count) bytes, \(self.bytes.count - self.offset) left")
        }
        defer { self.offset += count }
        return Array(self.bytes[self.offset..<self.offset + count])
    }

    mutating func readMessage() throws -> DNSMessage {
        var message = DNSMessage(isResponse: false)
        message.id = try self.u16()
        message.setFlags(try self.u16())
        let counts = [try self.u16(), try self.u16(), try self.u16(), try self.u16()]
        for (index, count) in counts.enumerated() where Int(count) > self.limits.maxRecordsPerSection {
            throw self.fail(.tooManyRecords, "section \(index) declares \(count) entries", at: 4 + index * 2)
        }
        for _ in 0..<counts[0] { message.questions.append(try self.readQuestion()) }
        for _ in 0..<counts[1] { if let record = try self.readRecord() { message.answers.append(record) } }
        for _ in 0..<counts[2] { if let record = try self.readRecord() { message.authorities.append(record) } }
        for _ in 0..<counts[3] { if let record = try self.readRecord() { message.additionals.append(record) } }
        return message
    }

    mutating func readQuestion() throws -> DNSQuestion {
        let name = try self.readName()
        let type = DNSRecordType(rawValue: try self.u16())
        let rawClass = try self.u16()
        return DNSQuestion(
            name: name,
            type: type,
            unicastResponse: rawClass & 0x8000 != 0,
            questionClass: DNSClass(rawValue: rawClass & 0x7FFF)
        )
    }

    /// Reads a possibly compressed name (RFC 1035 §4.1.4). Pointers may point anywhere inside the message
    /// (some responders emit forward pointers); loops are caught by the hop limit and the 255-byte limit.
    mutating func readName() throws -> DNSName {
        var labels: [[UInt8]] = []
        var wireLength = 1
        var position = self.offset
        var hops = 0
        var resumeAt: Int?
        while true {
            guard position < self.bytes.count else {
                throw self.fail(.truncated, "message ends inside a name", at: position)
            }
            let length = self.bytes[position]
            switch length & 0xC0 {
            case 0x00:
                if length == 0 {
                    self.offset = resumeAt ?? position + 1
                    return DNSName(uncheckedLabels: labels)
                }
                let start = position + 1
                guard start + Int(length) <= self.bytes.count else {
                    throw self.fail(.truncated, "message ends inside a label", at: position)
                }
                wireLength += Int(length) + 1
                guard wireLength <= DNSName.maxWireLength else {
                    throw self.fail(.nameTooLong, "name longer than 255 bytes", at: position)
                }
                labels.append(Array(self.bytes[start..<start + Int(length)]))
                position = start + Int(length)
            case 0xC0:
                guard position + 1 < self.bytes.count else {
                    throw self.fail(.truncated, "message ends inside a pointer", at: position)
                }
                let target = Int(length & 0x3F) << 8 | Int(self.bytes[position + 1])
                guard target < self.bytes.count else {
                    throw self.fail(.pointerOutOfRange, "pointer to \(target) beyond the message", at: position)
                }
                hops += 1
                guard hops <= self.limits.maxPointerHops, target != position else {
                    throw self.fail(.pointerLoop, "compression pointers loop", at: position)
                }
                if resumeAt == nil { resumeAt = position + 2 }
                position = target
            default:
                throw self.fail(.badLabelType, "label type 0x\(String(length & 0xC0, radix: 16))", at: position)
            }
        }
    }

    /// Reads one record; nil for an NSEC record whose data cannot be parsed, which is skipped.
    mutating func readRecord() throws -> DNSRecord? {
        let name = try self.readName()
        let type = DNSRecordType(rawValue: try self.u16())
        let rawClass = try self.u16()
        // RFC 2181 §8: a TTL with the most significant bit set is treated as zero.
        let rawTTL = try self.u32()
        let ttl = rawTTL & 0x8000_0000 == 0 ? rawTTL : 0
        let rdLength = Int(try self.u16())
        let start = self.offset
        guard rdLength <= self.bytes.count - start else {
            throw self.fail(.badRDataLength, "RDLENGTH \(rdLength) runs past the message", at: start - 2)
        }
        let end = start + rdLength
        let data: DNSRData
        if type == .nsec {
            // RFC 6762 §6.1: never drop a whole message because of a bad NSEC (some devices send broken pointers).
            guard let nsec = try? self.readNSEC(end: end) else {
                self.offset = end
                return nil
            }
            data = nsec
        } else {
            data = try self.readRData(type: type, end: end)
        }
        guard self.offset == end else {
            throw self.fail(.badRDataLength, "\(type) data is \(self.offset - start) bytes, RDLENGTH says \(rdLength)")
        }
        // RFC 6762 §18.13: the top class bit is cache-flush, except for OPT whose class is a payload size.
        let isOPT = type == .opt
        return DNSRecord(
            name: name,
            data: data,
            ttl: ttl,
            cacheFlush: !isOPT && rawClass & 0x8000 != 0,
            recordClass: DNSClass(rawValue: isOPT ? rawClass : rawClass & 0x7FFF)
        )
    }

    mutating func readRData(type: DNSRecordType, end: Int) throws -> DNSRData {
        let length = end - self.offset
        switch type {
        case .a:
            guard length == 4 else { throw self.fail(.badRData, "A data of \(length) bytes") }
            let b = try self.take(4)
            return .a(IPv4Address(b[0], b[1], b[2], b[3]))
        case .aaaa:
            guard length == 16 else { throw self.fail(.badRData, "AAAA data of \(length) bytes") }
            return .aaaa(IPv6Address(bytes: try self.take(16))!)
        case .ptr:
            return .ptr(try self.readBoundedName(end: end))
        case .srv:
            guard length >= 7 else { throw self.fail(.badRData, "SRV data of \(length) bytes") }
            let priority = try self.u16()
            let weight = try self.u16()
            let port = try self.u16()
            return .srv(priority: priority, weight: weight, port: port, target: try self.readBoundedName(end: end))
        case .txt:
            var strings: [[UInt8]] = []
            while self.offset < end {
                let count = Int(try self.u8())
                guard self.offset + count <= end else { throw self.fail(.badRData, "TXT string runs past its record") }
                strings.append(try self.take(count))
            }
            // RFC 6763 §6.1: zero-length data and a single empty string both mean "no attributes", which is
            // `.txt([])`, the value the encoder writes as one zero byte; this keeps decode/encode stable.
            return .txt(strings == [[]] ? [] : strings)
        case .nsec:
            return try self.readNSEC(end: end)
        case .opt:
            return .opt(try self.take(length))
        default:
            return .unknown(type, try self.take(length))
        }
    }

    mutating func readBoundedName(end: Int) throws -> DNSName {
        let name = try self.readName()
        guard self.offset <= end else { throw self.fail(.badRDataLength, "name runs past its record") }
        return name
    }

    /// Reads NSEC data (RFC 4034 §4.1): next name, then window blocks of (window, length 1–32, bitmap).
    mutating func readNSEC(end: Int) throws -> DNSRData {
        let next = try self.readBoundedName(end: end)
        var types = Set<DNSRecordType>()
        while self.offset < end {
            let window = try self.u8()
            let count = Int(try self.u8())
            guard (1...32).contains(count), self.offset + count <= end else {
                throw self.fail(.badRData, "NSEC bitmap length \(count)")
            }
            for (index, byte) in try self.take(count).enumerated() where byte != 0 {
                for bit in 0..<8 where byte & (0x80 >> bit) != 0 {
                    types.insert(DNSRecordType(rawValue: UInt16(window) << 8 | UInt16(index * 8 + bit)))
                }
            }
        }
        return .nsec(next: next, types: types)
    }
}
