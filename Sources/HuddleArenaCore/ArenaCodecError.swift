/// Why bytes could not be decoded into (or a value encoded as) an ``ArenaMessage``.
///
/// Compare errors by ``code``; codes are an open set, so new ones do not break callers.
public struct ArenaCodecError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case truncated, trailingBytes, oversized, unsupportedVersion, unknownKind
            case nameTooLong, emptyName, invalidUTF8, tooManyPlayers
        }

        private var base: Base

        private init(_ base: Base) { self.base = base }

        public var description: String { self.base.rawValue }

        /// The input ended inside a field.
        public static let truncated = Self(.truncated)
        /// Bytes were left after a complete message.
        public static let trailingBytes = Self(.trailingBytes)
        /// The message is longer than ``ArenaCodecLimits/maximumMessageBytes``.
        public static let oversized = Self(.oversized)
        /// The first byte is not a layout version this code knows.
        public static let unsupportedVersion = Self(.unsupportedVersion)
        /// The second byte is not a known message kind.
        public static let unknownKind = Self(.unknownKind)
        /// A name is longer than ``ArenaCodecLimits/maximumNameBytes``.
        public static let nameTooLong = Self(.nameTooLong)
        /// An owner or peer name is empty.
        public static let emptyName = Self(.emptyName)
        /// A name is not valid UTF-8.
        public static let invalidUTF8 = Self(.invalidUTF8)
        /// More players than ``ArenaCodecLimits/maximumPlayersPerMessage``.
        public static let tooManyPlayers = Self(.tooManyPlayers)
    }

    public var code: Code
    /// The byte offset where decoding failed (0 when encoding).
    public var offset: Int
    public var message: String

    public init(_ code: Code, offset: Int, _ message: String) {
        self.code = code
        self.offset = offset
        self.message = message
    }

    public var description: String { "\(self.code) at byte \(self.offset): \(self.message)" }
}
