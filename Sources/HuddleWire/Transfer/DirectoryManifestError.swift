/// Why a directory offer's manifest was refused: every entry's path must name a distinct place strictly inside the
/// receiver's target, and the manifest must stay within ``DirectoryManifestLimits``.
public enum DirectoryManifestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A path component is not an acceptable file name.
    case badPath(String, TransferNameError)
    /// The path starts with `/`.
    case absolutePath(String)
    case pathTooLong(String, limit: Int)
    case tooDeep(String, limit: Int)
    /// Two entries name the same place (compared without regard to case, as some file systems do).
    case duplicatePath(String)
    /// An entry lies below a path that another entry declares to be a file.
    case parentIsFile(String)
    case tooManyEntries(Int, limit: Int)
    /// The encoded manifest, or the sum of its file sizes, is over the limit.
    case tooLarge(UInt64, limit: UInt64)

    public var description: String {
        switch self {
        case .badPath(let path, let reason): "\(Self.quoted(path)): \(reason)"
        case .absolutePath(let path): "\(Self.quoted(path)) is an absolute path"
        case .pathTooLong(let path, let limit): "\(Self.quoted(path)) is longer than \(limit) bytes"
        case .tooDeep(let path, let limit): "\(Self.quoted(path)) is nested deeper than \(limit) levels"
        case .duplicatePath(let path): "\(Self.quoted(path)) appears twice"
        case .parentIsFile(let path): "\(Self.quoted(path)) lies below a file"
        case .tooManyEntries(let count, let limit): "\(count) entries (at most \(limit))"
        case .tooLarge(let size, let limit): "\(size) bytes (at most \(limit))"
        }
    }

    /// The path for a message: control characters shown as escapes, at most 200 characters.
    static func quoted(_ path: String) -> String {
        let shown = path.unicodeScalars.prefix(200).map { scalar in
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
        return "\"" + shown.joined() + "\""
    }
}
