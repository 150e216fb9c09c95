public import Foundation
import Huddle
public import HuddleDaemon
import HuddleTransport
import HuddleWire

/// What the page shows, read from the daemon at each request (docs/web.md, "The page"): who it is, the devices it
/// knows, the questions waiting for a person and the outbox. Plain values, so the page is rendered and tested
/// without a daemon.
public struct PageState: Sendable, Equatable, Encodable {
    /// A question that waits (``PendingQuestions``): its number and its words.
    public struct Question: Sendable, Equatable, Encodable {
        public var id: Int
        public var lines: [String]

        public init(id: Int, lines: [String]) { (self.id, self.lines) = (id, lines) }

        /// A question of the daemon's, its words made for a page rather than a terminal: without the leading
        /// `? ` and the trailing ` [y/n]` (the page has buttons), the first letter upper case.
        public init(asked id: Int, _ lines: [String]) {
            let shown = lines.map { line -> String in
                var line = Substring(line)
                if line.hasPrefix("? ") { line = line.dropFirst(2) }
                if line.hasSuffix(" [y/n]") { line = line.dropLast(6) }
                return line.prefix(1).uppercased() + line.dropFirst()
            }
            self.init(id: id, lines: shown)
        }
    }

    /// A queued send: its outbox ID, the file's name, who it waits for, since when.
    public struct QueuedSend: Sendable, Equatable, Encodable {
        public var id: String
        public var file: String
        public var recipient: String
        public var queuedAt: Date
        public var lastError: String?

        public init(id: String, file: String, recipient: String, queuedAt: Date, lastError: String? = nil) {
            (self.id, self.file, self.recipient, self.queuedAt, self.lastError) =
                (id, file, recipient, queuedAt, lastError)
        }
    }

    public var name: String
    public var shortID: String
    public var directory: String
    public var devices: [DaemonDevice]
    public var questions: [Question]
    public var outbox: [QueuedSend]
    /// The files received, newest first (at most ``receivedShown``).
    public var received: [HistoryEntry] = []
    public static let receivedShown = 20
    /// The texts said and received (Huddle chat both ways, LocalSend and KDE Connect texts), oldest first: the
    /// newest ``chatShown``.
    public var chat: [HistoryEntry] = []
    public static let chatShown = 30
    /// The page for a phone (docs/daemon.md, "A phone's page"); nil when it is off.
    public var phone: Phone?
    /// The clipboard's recent items, oldest first (docs/daemon.md, "The clipboard"); nil when sync is off.
    public var clipboard: [ClipboardEntry]?
    /// The pairing link issued from the page, while it waits, or what came of it; nil before one was.
    public var pairing: PagePairing.Shown?

    /// A code for a phone: the page's addresses with the pass while it waits for its phone (empty before a code
    /// is shown, once a phone holds it, or when it was not used in time), and the address of the phone holding it.
    public struct Phone: Sendable, Equatable, Encodable {
        public var links: [String]
        public var holder: String?

        public init(links: [String], holder: String?) {
            (self.links, self.holder) = (links, holder)
        }
    }

    public init(
        name: String,
        shortID: String,
        directory: String,
        devices: [DaemonDevice] = [],
        questions: [Question] = [],
        received: [HistoryEntry] = [],
        chat: [HistoryEntry] = [],
        outbox: [QueuedSend] = []
    ) {
        (self.name, self.shortID, self.directory, self.chat) = (name, shortID, directory, chat)
        (self.devices, self.questions, self.outbox, self.received) = (devices, questions, outbox, received)
    }
}

extension Daemon {
    /// The page's state now.
    public func pageState() async -> PageState {
        var state = PageState(
            name: session.displayName,
            shortID: session.identity.deviceID.shortID,
            directory: directory.path,
            devices: await devices(),
            questions: await questions.questions.map { PageState.Question(asked: $0.id, $0.lines) },
            received: history.entries.filter { $0.kind == .file }.suffix(PageState.receivedShown).reversed(),
            chat: Array(history.entries.filter { $0.kind == .text }.suffix(PageState.chatShown)),
            outbox: outbox.entries.map {
                PageState.QueuedSend(
                    id: $0.id,
                    file: URL(fileURLWithPath: $0.path).lastPathComponent,
                    recipient: $0.recipient,
                    queuedAt: $0.queuedAt,
                    lastError: $0.lastError
                )
            }
        )
        state.phone = phoneState().map { PageState.Phone(links: $0.links, holder: $0.holder) }
        state.pairing = pagePairing.shown(at: Date())
        state.clipboard = clipboard?.book.entries
        return state
    }
}
