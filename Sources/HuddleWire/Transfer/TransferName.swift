/// Decides whether a file name offered by a peer may be written (`docs/wire-protocol.md` §7.4): one path component,
/// no `.` or `..`, no slash or backslash, no NUL or other control characters, no Unicode bidi controls, at most
/// 255 bytes of UTF-8, not a reserved device name (`CON`, `NUL`, `COM1`, … with any extension).
public enum TransferName {
    static let reservedNames = Set(["CON", "PRN", "AUX", "NUL"] + (1...9).flatMap { ["COM\($0)", "LPT\($0)"] })

    public static func validate(_ name: String) throws(TransferNameError) -> String {
        guard !name.isEmpty else { throw .empty }
        guard name.utf8.count <= 255 else { throw .tooLong(name.utf8.count) }
        guard name != "." && name != ".." else { throw .dotName }
        for scalar in name.unicodeScalars {
            switch scalar.value {
            case 0x2F, 0x5C: throw .separator
            case 0x00...0x1F, 0x7F...0x9F: throw .controlCharacter
            case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: throw .controlCharacter
            default: continue
            }
        }
        let stem = name.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)[0].uppercased()
        guard !reservedNames.contains(stem.trimmingTrailingSpaces) else { throw .deviceName }
        return name
    }
}

/// Why an offered name was refused.
public enum TransferNameError: Error, Hashable, Sendable, CustomStringConvertible {
    case empty
    case tooLong(Int)
    case dotName, separator, controlCharacter, deviceName

    public var description: String {
        switch self {
        case .empty: "an empty file name"
        case .tooLong(let count): "a file name of \(count) bytes (at most 255)"
        case .dotName: "the name . or .."
        case .separator: "a name with a path separator (only plain file names are accepted)"
        case .controlCharacter: "a name with control or bidirectional-override characters"
        case .deviceName: "a reserved device name"
        }
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
