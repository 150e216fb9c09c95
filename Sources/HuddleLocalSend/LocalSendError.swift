public import HuddleErrors

/// Why talking to a LocalSend peer failed, in words for the user (no flag named: what to do about it is the
/// caller's to say, by ``code``).
///
/// A struct in the style of SwiftNIO's errors, as `PeerSessionError` is: compare with `==`
/// (`error == .declined`) or branch on ``code`` (`error.code == .pinRequired`); codes can be added without breaking
/// a caller's `switch`.
public struct LocalSendError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is.
    public typealias Code = ErrorCode<LocalSendError>

    public let code: Code
    /// The failure in words, for the user.
    public let message: String
    /// The HTTP status the device answered (``Code/rejectedUpload``, ``Code/unexpectedStatus``).
    public let status: Int?

    public init(_ code: Code, _ message: String, status: Int? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }

    public var description: String { message }

    public static func fingerprintMismatch(expected: String, presented: String) -> Self {
        Self(
            .fingerprintMismatch,
            "the device's certificate is \(presented.prefix(16))…, not the \(expected.prefix(16))… it announced or "
                + "that was pinned: nothing was sent (another device may be posing as it)"
        )
    }

    public static func plainHTTPRefused(_ name: String) -> Self {
        Self(
            .plainHTTPRefused,
            "\(name) speaks plain HTTP (no encryption, anyone on the network can read and change what is sent); "
                + "refused unless plain HTTP is allowed"
        )
    }

    public static let pinRequired = Self(.pinRequired, "the device asks for a PIN")
    public static let pinRejected = Self(.pinRejected, "the device refused the PIN (wrong, or too many tries)")
    public static let declined = Self(.declined, "the device declined the files")
    public static let busy = Self(.busy, "the device is busy with another transfer; try again when it is done")
    public static let tooManyRequests = Self(
        .tooManyRequests,
        "the device refuses more tries for now (too many wrong PINs); wait and try again"
    )

    public static func rejectedUpload(status: Int, file: String) -> Self {
        Self(.rejectedUpload, "the device refused \(file) (HTTP \(status))", status: status)
    }

    public static func unexpectedStatus(_ status: Int, _ what: String) -> Self {
        Self(.unexpectedStatus, "the device answered HTTP \(status) to \(what)", status: status)
    }

    public static func badAnswer(_ reason: String) -> Self {
        Self(.badAnswer, "the device's answer could not be read: \(reason)")
    }

    public static func unreachable(_ reason: String) -> Self {
        Self(.unreachable, "the device cannot be reached: \(reason)")
    }

    public static let cancelled = Self(.cancelled, "the transfer was cancelled")
    public static let receiverCancelled = Self(.receiverCancelled, "the receiving device cancelled the transfer")

    public static func fileChanged(_ file: String) -> Self {
        Self(.fileChanged, "\(file) changed while it was read; send it again once it is written")
    }

    public static func fileReplaced(_ file: String) -> Self {
        Self(.fileReplaced, "\(file) was replaced by another file (or a link to one) since it was chosen; not sent")
    }
}

extension ErrorCode where Domain == LocalSendError {
    /// The peer's certificate is not the one it announced (or was pinned): nothing was sent.
    public static let fingerprintMismatch = Self("fingerprintMismatch")
    /// The peer speaks plain HTTP and plain HTTP is not allowed.
    public static let plainHTTPRefused = Self("plainHTTPRefused")
    public static let pinRequired = Self("pinRequired")
    public static let pinRejected = Self("pinRejected")
    public static let declined = Self("declined")
    public static let busy = Self("busy")
    public static let tooManyRequests = Self("tooManyRequests")
    public static let rejectedUpload = Self("rejectedUpload")
    public static let unexpectedStatus = Self("unexpectedStatus")
    public static let badAnswer = Self("badAnswer")
    public static let unreachable = Self("unreachable")
    public static let cancelled = Self("cancelled")
    /// The receiver ended a session it had accepted before every file was in.
    public static let receiverCancelled = Self("receiverCancelled")
    /// A file to send changed size while it was read (hashed or sent).
    public static let fileChanged = Self("fileChanged")
    /// A file to send or share is another file than when it was chosen (replaced, or by a link): not sent.
    public static let fileReplaced = Self("fileReplaced")
}
