public import HuddleErrors
/// The client's side of the authentication that opens every connection (D-Bus Specification, "Authentication
/// Protocol"), by the EXTERNAL mechanism only: the kernel tells the bus who we are, and we name the same user.
///
/// It starts with a NUL byte and `AUTH EXTERNAL <the user ID's decimal digits, hex-encoded>`; the bus answers
/// `OK <server GUID>`, and `BEGIN` ends the line-based part: what follows is messages. Lines end in CR LF and are
/// bounded here. Pure: bytes in, bytes out.
public struct DBusAuthentication: Sendable {
    /// The longest line the bus may send before its CR LF.
    public static let maximumLineLength = 512

    /// Authenticated: send ``send`` (`BEGIN`), then speak messages; ``rest`` is what the bus sent after its `OK`
    /// line (the start of a message, if any). The GUID names the bus.
    public struct Outcome: Sendable, Equatable {
        public let guid: String
        public let send: [UInt8]
        public let rest: [UInt8]
    }

    let userID: UInt32
    private var buffered: [UInt8] = []
    private(set) var guid: String?

    public init(userID: UInt32) { self.userID = userID }

    /// The first bytes to send: the NUL and the AUTH command.
    public var opening: [UInt8] {
        let hex = Array(String(userID).utf8).map { byte in String(byte, radix: 16) }.joined()
        return [0] + Array("AUTH EXTERNAL \(hex)\r\n".utf8)
    }

    /// Takes bytes from the bus: the outcome once a whole `OK` line came, nil while the line is incomplete.
    ///
    /// - Throws: ``NotificationError/Code/authentication`` on `REJECTED`, `ERROR`, anything else, or a line too
    ///   long; after it, the connection must be closed.
    public mutating func receive(_ bytes: some Sequence<UInt8>) throws(NotificationError) -> Outcome? {
        guard guid == nil else { throw NotificationError(.authentication, "authentication is over already") }
        buffered += bytes
        guard let end = buffered.indices.dropLast().first(where: { buffered[$0] == 13 && buffered[$0 + 1] == 10 })
        else {
            guard buffered.count <= Self.maximumLineLength else {
                throw NotificationError(.authentication, "the bus sent a line over \(Self.maximumLineLength) bytes")
            }
            return nil
        }
        guard end <= Self.maximumLineLength else {
            throw NotificationError(.authentication, "the bus sent a line over \(Self.maximumLineLength) bytes")
        }
        let line = String(decoding: buffered[..<end], as: UTF8.self)
        let rest = Array(buffered[(end + 2)...])
        buffered = []
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard words.first == "OK", words.count == 2, words[1].utf8.count == 32,
            words[1].allSatisfy(\.isHexDigit)
        else {
            throw NotificationError(.authentication, "the session bus refused the EXTERNAL authentication: \(line)")
        }
        guid = String(words[1])
        return Outcome(guid: String(words[1]), send: Array("BEGIN\r\n".utf8), rest: rest)
    }
}
