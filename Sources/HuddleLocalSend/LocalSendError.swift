/// Why talking to a LocalSend peer failed, in words for the user.
public enum LocalSendError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The peer's certificate is not the one it announced (or was pinned): nothing was sent.
    case fingerprintMismatch(expected: String, presented: String)
    /// The peer speaks plain HTTP and the user did not allow it.
    case plainHTTPRefused(String)
    case pinRequired
    case pinRejected
    case declined
    case busy
    case tooManyRequests
    case rejectedUpload(status: Int, file: String)
    case unexpectedStatus(Int, String)
    case badAnswer(String)
    case unreachable(String)
    case cancelled
    /// The receiver ended a session it had accepted before every file was in.
    case receiverCancelled
    /// A file to send changed size while it was read (hashed or sent).
    case fileChanged(String)
    /// A file to send or share is another file than when it was chosen (replaced, or by a link): not sent.
    case fileReplaced(String)

    public var description: String {
        switch self {
        case .fingerprintMismatch(let expected, let presented):
            "the device's certificate is \(presented.prefix(16))…, not the \(expected.prefix(16))… it announced or "
                + "that was pinned: nothing was sent (another device may be posing as it)"
        case .plainHTTPRefused(let name):
            "\(name) speaks plain HTTP (no encryption, anyone on the network can read and change what is sent); "
                + "refused: give --allow-plain-http to send or receive anyway"
        case .pinRequired: "the device asks for a PIN: give it with --pin"
        case .pinRejected: "the device refused the PIN (wrong, or too many tries)"
        case .declined: "the device declined the files"
        case .busy: "the device is busy with another transfer; try again when it is done"
        case .tooManyRequests: "the device refuses more tries for now (too many wrong PINs); wait and try again"
        case .rejectedUpload(let status, let file): "the device refused \(file) (HTTP \(status))"
        case .unexpectedStatus(let status, let what): "the device answered HTTP \(status) to \(what)"
        case .badAnswer(let reason): "the device's answer could not be read: \(reason)"
        case .unreachable(let reason): "the device cannot be reached: \(reason)"
        case .cancelled: "the transfer was cancelled"
        case .receiverCancelled: "the receiving device cancelled the transfer"
        case .fileChanged(let file): "\(file) changed while it was read; send it again once it is written"
        case .fileReplaced(let file):
            "\(file) was replaced by another file (or a link to one) since it was chosen; not sent"
        }
    }
}
