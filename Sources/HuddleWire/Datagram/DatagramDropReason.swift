/// Why a packet was dropped. An open set of codes, so new reasons can be added without breaking callers.
public struct DatagramDropReason: Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case malformed
        case unsupportedVersion
        case unknownConnectionID
        case unknownEpoch
        case expiredEpoch
        case duplicate
        case tooOld
        case authenticationFailed
        case failureLimitReached
    }

    private let code: Code

    /// Shorter than the 34-byte minimum (18-byte header plus 16-byte tag).
    public static let malformed = Self(code: .malformed)
    /// The version byte is not 1.
    public static let unsupportedVersion = Self(code: .unsupportedVersion)
    /// `dst_cid` is not ours: another session's packet, or noise. Nothing was decrypted.
    public static let unknownConnectionID = Self(code: .unknownConnectionID)
    /// The epoch byte is neither the current, the previous (in grace) nor the next epoch.
    public static let unknownEpoch = Self(code: .unknownEpoch)
    /// The packet belongs to the previous epoch and its grace period has ended.
    public static let expiredEpoch = Self(code: .expiredEpoch)
    /// The packet number was already delivered (a replay or a network duplicate).
    public static let duplicate = Self(code: .duplicate)
    /// The packet number is below the replay window.
    public static let tooOld = Self(code: .tooOld)
    /// The Poly1305 tag did not verify: a forgery, corruption, or the wrong key.
    public static let authenticationFailed = Self(code: .authenticationFailed)
    /// Too many authentication failures: the opener no longer tries to decrypt; close the session.
    public static let failureLimitReached = Self(code: .failureLimitReached)

    public var description: String {
        "\(code)"
    }
}
