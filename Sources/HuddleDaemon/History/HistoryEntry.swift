public import Foundation

/// One thing the daemon received (docs/daemon.md, "History"): a file or folder, with where it went, or a text,
/// with who sent it.
public struct HistoryEntry: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case file
        case text
    }

    public var at: Date
    public var kind: Kind
    /// `huddle`, `localsend` or `kdeconnect`.
    public var `protocol`: String
    /// Who sent it, when the protocol says (a text's sender; a file's is in the question asked about it).
    public var from: String?
    /// Who a text said here went to (`huddle chat` through the daemon): their names, comma-separated.
    public var to: String?
    /// Where a file or folder went.
    public var path: String?
    /// How many files a folder held.
    public var files: Int?
    /// A text, as received (shown escaped).
    public var text: String?

    public init(
        at: Date,
        kind: Kind,
        protocol: String,
        from: String? = nil,
        path: String? = nil,
        files: Int? = nil,
        text: String? = nil,
        to: String? = nil
    ) {
        (self.at, self.kind, self.protocol, self.from, self.to) = (at, kind, `protocol`, from, to)
        (self.path, self.files, self.text) = (path, files, text)
    }
}

/// The history as kept on disk: `history.json` in the data directory, `{"version": 1, "entries": [...]}`, oldest
/// first.
public struct HistoryFile: Codable, Sendable, Equatable {
    public static let version = 1
    public var version = HistoryFile.version
    public var entries: [HistoryEntry] = []
}
