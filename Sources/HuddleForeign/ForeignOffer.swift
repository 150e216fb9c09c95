public import Foundation
import HuddleBase

/// Files (or a text) a foreign peer asks to send here; the receiver answers once for all of them.
public struct ForeignOffer: Sendable, Identifiable {
    /// One file of the offer, as the sender describes it.
    public struct File: Sendable, Hashable {
        public let id: String
        /// The name checked for safety (`TransferName.validate`; hidden names are kept apart, `HiddenNames`): no
        /// path, no control characters.
        public let name: String
        public let size: UInt64
        public let mimeType: String
        /// The SHA-256 the sender gave, lowercase hex, when it gave one: then the file is checked on arrival.
        public let sha256: String?

        public init(id: String, name: String, size: UInt64, mimeType: String, sha256: String?) {
            self.id = id
            self.name = name
            self.size = size
            self.mimeType = mimeType
            self.sha256 = sha256
        }
    }

    public let id: String
    public let from: ForeignPeer
    public let files: [File]
    /// A text message sent as an offer (LocalSend sends text as a file whose preview holds it).
    public let text: String?

    public init(id: String, from: ForeignPeer, files: [File], text: String?) {
        self.id = id
        self.from = from
        self.files = files
        self.text = text
    }

    public var totalSize: UInt64 { files.reduce(0) { $0 + $1.size } }
}

/// How a receiver answers an offer.
public enum ForeignOfferAnswer: Sendable, Hashable {
    /// Take the files into this directory (never overwriting: a taken name becomes "name (2).ext").
    case accept(into: URL)
    case decline
}

extension ForeignOffer {
    /// One line per offered file, for the question: every name, hidden ones flagged with the name they are kept
    /// under (``HiddenNames/foreignStoredName(_:)``).
    public var fileLines: [String] {
        files.map { file in
            let hidden =
                HiddenNames.isHidden(file.name)
                ? " — HIDDEN name, kept as \(HiddenNames.foreignStoredName(file.name))" : ""
            return "  - \(file.name) (\(file.size) bytes)\(hidden)"
        }
    }
}
