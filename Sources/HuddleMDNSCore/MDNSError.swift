/// An error from the mDNS layer: invalid registrations and browse requests, and I/O failures.
public struct MDNSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as an extensible set of codes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A service type that is not valid (RFC 6763 §7, RFC 6335 §5.1).
        public static let invalidServiceType = Self("invalidServiceType")
        /// An instance name that is empty, too long or holds control characters (RFC 6763 §4.1.1).
        public static let invalidInstanceName = Self("invalidInstanceName")
        /// A host label that is not valid.
        public static let invalidHostName = Self("invalidHostName")
        /// A TXT record that does not fit the rules of RFC 6763 §6.
        public static let invalidTXT = Self("invalidTXT")
        /// No network interface could be used.
        public static let noUsableInterface = Self("noUsableInterface")
        /// The stack was shut down and takes no more work.
        public static let shutDown = Self("shutDown")
        /// A socket could not be opened or configured.
        public static let socketFailure = Self("socketFailure")

        public var description: String { self.name }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
    public var description: String { self.message }
}
