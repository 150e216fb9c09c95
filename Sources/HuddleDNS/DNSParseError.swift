public import HuddleErrors

/// An error raised while decoding a DNS message, with the byte offset where decoding failed.
///
/// Errors compare by ``code`` only, so new codes can be added without breaking callers' `switch` statements.
public struct DNSParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong: one of an open set of codes (``ErrorCode``), named below.
    public typealias Code = ErrorCode<DNSParseError>

    /// What went wrong.
    public var code: Code
    /// The byte offset in the message where decoding failed.
    public var offset: Int
    /// A readable explanation.
    public var message: String

    public init(_ code: Code, offset: Int, _ message: String) {
        self.code = code
        self.offset = offset
        self.message = message
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }

    public var description: String { "DNS parse error \(self.code) at byte \(self.offset): \(self.message)" }
}

extension ErrorCode where Domain == DNSParseError {
    /// The message ended before a field did.
    public static let truncated = Self("truncated")
    /// The datagram is larger than the 9000-byte cap of RFC 6762 §17.
    public static let packetTooLarge = Self("packetTooLarge")
    /// A label is longer than 63 bytes (RFC 1035 §2.3.4).
    public static let labelTooLong = Self("labelTooLong")
    /// A name is longer than 255 bytes on the wire (RFC 1035 §2.3.4).
    public static let nameTooLong = Self("nameTooLong")
    /// Compression pointers form a loop or a chain longer than allowed.
    public static let pointerLoop = Self("pointerLoop")
    /// A compression pointer points outside the message.
    public static let pointerOutOfRange = Self("pointerOutOfRange")
    /// A label starts with the reserved bits `01` or `10` (RFC 6891 §5).
    public static let badLabelType = Self("badLabelType")
    /// A section holds more records than the configured limit.
    public static let tooManyRecords = Self("tooManyRecords")
    /// A record's RDLENGTH does not match its contents.
    public static let badRDataLength = Self("badRDataLength")
    /// A record's RDATA is malformed for its type.
    public static let badRData = Self("badRData")
    /// A name given in presentation form is not valid.
    public static let invalidName = Self("invalidName")
}
