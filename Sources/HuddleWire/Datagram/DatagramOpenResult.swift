/// What became of one received packet. Opening never throws: a bad packet is a counted drop, not an error
/// (`docs/security.md` §3.7 and §3.9, `replayDetected` is a counter only).
public enum DatagramOpenResult: Hashable, Sendable {
    /// The packet authenticated and had not been seen before; here is its payload.
    case delivered([UInt8])
    /// The packet was discarded, for this reason.
    case dropped(DatagramDropReason)
}

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

/// Running totals of what a ``DatagramOpener`` did with the packets it was given.
public struct DatagramCounters: Hashable, Sendable {
    /// Packets delivered.
    public var delivered: UInt64 = 0
    /// Packets too short or of an unknown version.
    public var malformed: UInt64 = 0
    /// Packets for another connection ID.
    public var unknownConnectionID: UInt64 = 0
    /// Packets of an epoch we hold no key for (including an expired previous epoch).
    public var unknownEpoch: UInt64 = 0
    /// Packets refused by the replay window: duplicates and packets below it.
    public var replayDropped: UInt64 = 0
    /// Packets whose tag did not verify, plus those refused after the failure limit.
    public var authFailures: UInt64 = 0

    /// All counters at zero.
    public init() {}
}
