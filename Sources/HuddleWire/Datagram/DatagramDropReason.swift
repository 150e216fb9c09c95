public import HuddleErrors

/// Why a packet was dropped: one of an open set of codes (``ErrorCode``, the domain ``DatagramOpenResult``), so new
/// reasons can be added without breaking callers.
public typealias DatagramDropReason = ErrorCode<DatagramOpenResult>

extension ErrorCode where Domain == DatagramOpenResult {
    /// Shorter than the 34-byte minimum (18-byte header plus 16-byte tag).
    public static let malformed = Self("malformed")
    /// The version byte is not 1.
    public static let unsupportedVersion = Self("unsupportedVersion")
    /// `dst_cid` is not ours: another session's packet, or noise. Nothing was decrypted.
    public static let unknownConnectionID = Self("unknownConnectionID")
    /// The epoch byte is neither the current, the previous (in grace) nor the next epoch.
    public static let unknownEpoch = Self("unknownEpoch")
    /// The packet belongs to the previous epoch and its grace period has ended.
    public static let expiredEpoch = Self("expiredEpoch")
    /// The packet number was already delivered (a replay or a network duplicate).
    public static let duplicate = Self("duplicate")
    /// The packet number is below the replay window.
    public static let tooOld = Self("tooOld")
    /// The Poly1305 tag did not verify: a forgery, corruption, or the wrong key.
    public static let authenticationFailed = Self("authenticationFailed")
    /// Too many authentication failures: the opener no longer tries to decrypt; close the session.
    public static let failureLimitReached = Self("failureLimitReached")
}
