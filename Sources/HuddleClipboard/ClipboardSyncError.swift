/// Errors of clipboard sharing and sync.
public enum ClipboardSyncError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A `--types` word that is not a kind of data.
    case badTypeList(String)
    /// The clipboard is empty: nothing to share.
    case nothingToShare
    /// The item was refused before it left (secret, too large, no allowed type).
    case refused(String)
    /// The receiving user or machine declined the item.
    case declined(String)

    public var description: String {
        switch self {
        case .badTypeList(let word):
            "unknown kind of data \"\(word)\"; use a comma-separated list of "
                + ClipboardItemFilter.Kind.allCases.map(\.rawValue).joined(separator: ", ")
        case .nothingToShare: "the clipboard is empty: nothing to share"
        case .refused(let reason): "not shared: \(reason)"
        case .declined(let reason): "declined by the receiver: \(reason)"
        }
    }
}
