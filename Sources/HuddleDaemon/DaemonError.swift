public import HuddleErrors

/// Why the daemon, or a command that talks to it, could not do what was asked (docs/daemon.md).
public typealias DaemonError = CodedError<DaemonErrorDomain>

/// The domain of ``DaemonError``'s codes.
public enum DaemonErrorDomain {}

extension ErrorCode where Domain == DaemonErrorDomain {
    /// Another daemon already runs for this data directory.
    public static let alreadyRunning = Self("alreadyRunning")
    /// The folder of the control socket is not this user's alone.
    public static let unsafeRuntimeDirectory = Self("unsafeRuntimeDirectory")
    /// A file the daemon keeps (the lock, the outbox) cannot be read or written.
    public static let storage = Self("storage")
    /// The other side speaks another version of the control protocol, or sent what it does not define.
    public static let protocolMismatch = Self("protocolMismatch")
    /// The configuration file does not parse, names an unknown setting or gives a wrong value.
    public static let configuration = Self("configuration")
    /// What was asked cannot be done now: no address to put in a pairing link, the session refusing.
    public static let unavailable = Self("unavailable")
    /// The control connection ended before the daemon said it was done.
    public static let connectionLost = Self("connectionLost")
}
