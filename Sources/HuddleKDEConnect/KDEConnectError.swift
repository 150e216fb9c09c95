public import HuddleErrors

/// Why KDE Connect could not do what was asked, in words for the user (no flag named: what to do about it is the
/// caller's to say, by ``code``).
///
/// A ``CodedError``: compare with `==` (`error == .noPort`) or branch on ``code``; codes can be added without
/// breaking a caller's `switch`.
public typealias KDEConnectError = CodedError<KDEConnectErrorDomain>

/// The domain of ``KDEConnectError``'s codes.
public enum KDEConnectErrorDomain {}

extension CodedError where Domain == KDEConnectErrorDomain {
    public static let noPort = Self(.noPort, "no TCP port from 1716 to 1764 is free")

    public static func notLinked(_ name: String) -> Self { Self(.notLinked, "\(name) is not connected") }

    public static func notPaired(_ name: String, reason: String) -> Self {
        Self(.notPaired, "\(name) is not paired: \(reason)")
    }

    public static func payload(_ reason: String) -> Self { Self(.payload, reason) }
}

extension ErrorCode where Domain == KDEConnectErrorDomain {
    /// No TCP port of KDE Connect's range was free to listen on.
    public static let noPort = Self("noPort")
    /// The device has no link to this one now.
    public static let notLinked = Self("notLinked")
    /// The device is not paired (any more), or refused or did not answer a pairing request.
    public static let notPaired = Self("notPaired")
    /// A file could not be sent or received: unreadable, replaced, not fetched, or its connection failed.
    public static let payload = Self("payload")
}
