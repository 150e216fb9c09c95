/// An error that is a code and a message and nothing more: the shape of the errors of the daemon, the desktop
/// notifications, KDE Connect and the rendezvous (docs/design.md, "Errors"). Each module names its own `Domain` (an
/// empty enum), its error as `typealias ThatError = CodedError<ThatErrorDomain>`, and its codes in an extension of
/// ``ErrorCode`` `where Domain ==` that domain, so a code of one cannot be compared with another's.
public struct CodedError<Domain>: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure it is: one of an open set of codes, named by the domain.
    public typealias Code = ErrorCode<Domain>

    public let code: Code
    /// The failure in words, for the user (no flag named: what to do about it is the caller's to say, by ``code``).
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
