import Crypto
public import HuddleDNS

/// Transaction signatures (RFC 8945) with HMAC-SHA256: signing a request, and checking the server's signed
/// answer. Pure: the time comes in as seconds since the epoch.
public enum TSIG {
    /// The record type of TSIG (RFC 8945 §4.2).
    public static let type = DNSRecordType(rawValue: 250)
    /// Seconds of clock difference the server may accept (RFC 8945 §10 recommends 300).
    public static let fudge: UInt16 = 300

    /// `message` (a whole DNS message) with a TSIG record appended and its additional count raised, and the MAC,
    /// which the answer's MAC covers.
    public static func sign(
        _ message: [UInt8],
        key: TSIGKey,
        timeSigned: UInt64
    ) -> (signed: [UInt8], mac: [UInt8]) {
        precondition(message.count >= 12, "a DNS message has a 12-byte header")
        let variables = Self.variables(key: key, timeSigned: timeSigned, error: 0, other: [])
        let mac = Self.mac(key: key, over: message + variables)
        let originalID = Array(message[0..<2])
        var rdata = Self.canonical(key.algorithm) + Self.be48(timeSigned) + Self.be16(Self.fudge)
        rdata += Self.be16(UInt16(mac.count)) + mac + originalID + Self.be16(0) + Self.be16(0)
        var signed = message
        Self.addToAdditionalCount(&signed, 1)
        signed += Self.canonical(key.name) + Self.be16(Self.type.rawValue) + Self.be16(DNSClass.any.rawValue)
        signed += [0, 0, 0, 0] + Self.be16(UInt16(rdata.count)) + rdata
        return (signed, mac)
    }

    /// Checks `answer`'s TSIG record against `key` and the request's MAC (RFC 8945 §5.3), the MAC before anything
    /// the record says: an error in a record whose MAC does not verify is anyone's word.
    ///
    /// - Throws: ``TSIGError/refusedByServer(code:)`` when the server reports a TSIG error in a record whose MAC
    ///   verifies (BADTIME, RFC 8945 §5.2.3); ``TSIGError/unsignedRefusal(code:)`` when it reports one with no MAC
    ///   at all, the form RFC 8945 §5.3.2 gives BADKEY and BADSIG (nothing in it can be checked: anyone on the path
    ///   could have sent it); ``TSIGError/unsignedOrForgedAnswer`` when the record is missing or its MAC does not
    ///   verify.
    public static func verify(_ answer: [UInt8], key: TSIGKey, requestMAC: [UInt8]) throws(TSIGError) {
        guard let message = try? DNSMessageDecoder().decode(answer), let last = message.additionals.last,
            last.type == Self.type, case .unknown(_, let rdata) = last.data,
            let fields = Fields(rdata), Self.canonical(last.name) == Self.canonical(key.name)
        else { throw .unsignedOrForgedAnswer }
        if fields.error != 0, fields.mac.isEmpty { throw .unsignedRefusal(code: fields.error) }
        guard fields.algorithm == Self.canonical(key.algorithm), let start = Self.recordStart(answer, rdata: rdata)
        else { throw .unsignedOrForgedAnswer }
        var stripped = Array(answer[..<start])
        stripped[0] = fields.originalID[0]
        stripped[1] = fields.originalID[1]
        Self.addToAdditionalCount(&stripped, -1)
        let variables = Self.variables(
            key: key,
            timeSigned: fields.timeSigned,
            error: fields.error,
            other: fields.other
        )
        let input = Self.be16(UInt16(requestMAC.count)) + requestMAC + stripped + variables
        guard
            HMAC<SHA256>.isValidAuthenticationCode(
                fields.mac,
                authenticating: input,
                using: SymmetricKey(data: key.secret)
            )
        else { throw .unsignedOrForgedAnswer }
        if fields.error != 0 { throw .refusedByServer(code: fields.error) }
    }

    /// The TSIG variables (RFC 8945 §4.3.3): key name, class ANY, TTL 0, algorithm, time, fudge, error, other.
    package static func variables(key: TSIGKey, timeSigned: UInt64, error: UInt16, other: [UInt8]) -> [UInt8] {
        Self.canonical(key.name) + Self.be16(DNSClass.any.rawValue) + [0, 0, 0, 0] + Self.canonical(key.algorithm)
            + Self.be48(timeSigned) + Self.be16(Self.fudge) + Self.be16(error) + Self.be16(UInt16(other.count)) + other
    }

    package static func mac(key: TSIGKey, over bytes: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: bytes, using: SymmetricKey(data: key.secret)))
    }

    /// Where the message's last record (the TSIG record) starts: the sections walked from the header, names
    /// skipped whole or up to their compression pointer (RFC 1035 §4.1.4).
    static func recordStart(_ answer: [UInt8], rdata: [UInt8]) -> Int? {
        guard answer.count >= 12 else { return nil }
        func count(_ at: Int) -> Int { Int(answer[at]) << 8 | Int(answer[at + 1]) }
        func skipName(_ offset: Int) -> Int? {
            var index = offset
            while index < answer.count {
                let length = Int(answer[index])
                if length == 0 { return index + 1 }
                if length & 0xC0 == 0xC0 { return index + 2 <= answer.count ? index + 2 : nil }
                index += length + 1
            }
            return nil
        }
        var offset = 12
        for _ in 0..<count(4) {
            guard let end = skipName(offset), end + 4 <= answer.count else { return nil }
            offset = end + 4
        }
        let records = count(6) + count(8) + count(10)
        var last: Int?
        for _ in 0..<records {
            last = offset
            guard let end = skipName(offset), end + 10 <= answer.count else { return nil }
            offset = end + 10 + count(end + 8)
        }
        guard let last, offset == answer.count, answer.count - last >= 10 + rdata.count else { return nil }
        return last
    }

    /// A name on the wire in canonical form: uncompressed, ASCII letters in lower case (RFC 4034 §6.2).
    package static func canonical(_ name: DNSName) -> [UInt8] {
        name.uncompressedBytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }

    package static func addToAdditionalCount(_ message: inout [UInt8], _ delta: Int) {
        let count = Int(message[10]) << 8 | Int(message[11])
        let new = UInt16(count + delta)
        message[10] = UInt8(new >> 8)
        message[11] = UInt8(new & 0xFF)
    }

    package static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    package static func be48(_ value: UInt64) -> [UInt8] {
        (0..<6).reversed().map { UInt8((value >> (8 * $0)) & 0xFF) }
    }

    /// The fields of a TSIG record's data (RFC 8945 §4.2).
    struct Fields {
        var algorithm: [UInt8]
        var timeSigned: UInt64
        var mac: [UInt8]
        var originalID: [UInt8]
        var error: UInt16
        var other: [UInt8]

        init?(_ rdata: [UInt8]) {
            var index = 0
            while index < rdata.count, rdata[index] != 0 { index += Int(rdata[index]) + 1 }
            guard index < rdata.count else { return nil }
            algorithm = rdata[0...index].map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
            var rest = rdata[(index + 1)...]
            func take(_ count: Int) -> [UInt8]? {
                guard rest.count >= count else { return nil }
                defer { rest = rest.dropFirst(count) }
                return Array(rest.prefix(count))
            }
            func number(_ bytes: [UInt8]?) -> UInt64? { bytes?.reduce(0) { $0 << 8 | UInt64($1) } }
            guard let time = number(take(6)), let fudge = number(take(2)), fudge <= UInt16.max,
                let macSize = number(take(2)), let mac = take(Int(macSize)), let originalID = take(2),
                let error = number(take(2)), let otherSize = number(take(2)), let other = take(Int(otherSize)),
                rest.isEmpty
            else { return nil }
            timeSigned = time
            self.mac = mac
            self.originalID = originalID
            self.error = UInt16(error)
            self.other = other
        }
    }
}
