/// Everything that can go wrong in `HuddlePasteboard`, with a message that says what to do about it.
///
/// Compare errors by ``code``; codes are an open set, so new ones do not break callers' code.
public struct PasteboardError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case noBackend, libraryMissing, displayUnavailable, helperMissing, empty, typeNotOffered, timeout
            case transferFailed, tooLarge, malformedURL, malformedArchive, invalidName, notFound, storage, invalidInput
        }

        private var base: Base

        private init(_ base: Base) { self.base = base }

        public var description: String { self.base.rawValue }

        /// No clipboard can be reached: no `DISPLAY`, no `WAYLAND_DISPLAY`, not macOS.
        public static let noBackend = Self(.noBackend)
        /// A shared library the backend loads at run time (libX11, libXfixes) is not installed.
        public static let libraryMissing = Self(.libraryMissing)
        /// The display server did not accept a connection.
        public static let displayUnavailable = Self(.displayUnavailable)
        /// A helper program (wl-copy, wl-paste) is not installed.
        public static let helperMissing = Self(.helperMissing)
        /// Nobody owns the selection: the clipboard is empty.
        public static let empty = Self(.empty)
        /// The owner does not offer the type asked for.
        public static let typeNotOffered = Self(.typeNotOffered)
        /// The owner did not answer in time.
        public static let timeout = Self(.timeout)
        /// A transfer started but did not complete.
        public static let transferFailed = Self(.transferFailed)
        /// Data larger than a configured limit.
        public static let tooLarge = Self(.tooLarge)
        /// A `huddle:` URL that cannot be decoded.
        public static let malformedURL = Self(.malformedURL)
        /// A stored item whose bytes are not a valid archive.
        public static let malformedArchive = Self(.malformedArchive)
        /// A named-pasteboard name with characters that cannot be a file name.
        public static let invalidName = Self(.invalidName)
        /// No named pasteboard of that name (or it expired).
        public static let notFound = Self(.notFound)
        /// A file-system operation failed.
        public static let storage = Self(.storage)
        /// An argument that cannot be used.
        public static let invalidInput = Self(.invalidInput)
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { self.message }

    /// A failed C call, with `errno` spelled out.
    static func storage(_ what: String, errno number: Int32) -> PasteboardError {
        PasteboardError(.storage, "\(what): \(String(cString: strerrorText(number)))")
    }
}
