public import Foundation
import NIOConcurrencyHelpers

/// A clipboard item that came or went through the daemon's clipboard sync (docs/daemon.md, "The clipboard"): what
/// it was, when, and with whom. Kept in memory only, for the page and `huddle clip sync`.
public struct ClipboardEntry: Sendable, Equatable, Encodable {
    public enum Direction: String, Sendable, Encodable {
        /// A peer's copy put on this clipboard.
        case taken
        /// This machine's copy sent to peers.
        case shared
    }

    public var at: Date
    public var direction: Direction
    /// Who it came from (taken) or went to (shared), by name.
    public var peers: [String]
    /// Its types and sizes (``ClipItemSummary``'s words).
    public var summary: String
    /// The start of its text, when it has text (at most ``ClipboardBook/textShown`` characters).
    public var text: String?

    public init(at: Date, direction: Direction, peers: [String], summary: String, text: String? = nil) {
        (self.at, self.direction, self.peers, self.summary) = (at, direction, peers, summary)
        self.text = text.map { String($0.prefix(ClipboardBook.textShown)) }
    }
}

/// The newest clipboard items, newest last: at most ``kept``; the oldest goes when one more comes.
public final class ClipboardBook: Sendable {
    /// How many items are kept.
    public static let kept = 20
    /// How much of an item's text is kept.
    public static let textShown = 200
    private let held = NIOLockedValueBox<[ClipboardEntry]>([])

    public init() {}

    public func add(_ entry: ClipboardEntry) {
        held.withLockedValue { entries in
            entries.append(entry)
            if entries.count > Self.kept { entries.removeFirst(entries.count - Self.kept) }
        }
    }

    /// The items kept, oldest first.
    public var entries: [ClipboardEntry] { held.withLockedValue { $0 } }
}
