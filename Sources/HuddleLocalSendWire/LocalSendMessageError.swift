/// Why a LocalSend message was refused; said to the peer in the 400 answer and to the user as it is.
public enum LocalSendMessageError: Error, Sendable, Hashable, CustomStringConvertible {
    case tooLarge(limit: Int)
    case notJSON(String)
    case badField(String, String)
    case tooManyFiles(Int, limit: Int)
    case badFileName(String, String)

    public var description: String {
        switch self {
        case .tooLarge(let limit): "the message is larger than \(limit) bytes"
        case .notJSON(let reason): "the message is not the JSON expected: \(reason)"
        case .badField(let field, let reason): "\(field): \(reason)"
        case .tooManyFiles(let count, let limit): "\(count) files offered at once (at most \(limit))"
        case .badFileName(let name, let reason): "the file name \(name.debugDescription) was refused: \(reason)"
        }
    }
}
