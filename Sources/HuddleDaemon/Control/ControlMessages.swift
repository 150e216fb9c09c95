/// The control socket's messages (docs/daemon.md, "Control protocol"): one JSON object per line, a request from the
/// command line, then the daemon's replies until one carries `exit`.
///
/// Every message names the protocol's version. A daemon answers a request of another version with an error and
/// exit 69, so a command line newer or older than the daemon says so instead of guessing.
public enum ControlProtocol {
    /// The version this build speaks.
    public static let version = 1
    /// The longest line either side accepts (a send's paths included): longer closes the connection.
    public static let maximumLineBytes = 1 << 20
}

/// What the command line asks of the daemon.
public struct ControlRequest: Codable, Sendable, Equatable {
    /// What to do.
    public enum Command: String, Codable, Sendable {
        /// Who the daemon is: its name, directory, peers found.
        case status
        /// Send `paths` (or `text`, to LocalSend and KDE Connect devices; `pin` for a LocalSend receiver that asks)
        /// to the devices named `to`; queue paths for a paired device that is away.
        case send
        /// Issue a pairing link (`lifetimeSeconds`, `hosts`) and wait until it is used.
        case issuePairingLink
        /// Pair with the device of `link`.
        case pair
        /// List the outbox.
        case outbox
        /// Take the queued send `id` out of the outbox.
        case cancel
        /// List the questions waiting for an answer (with `json`, one ``DevicePicker/Question`` `record` each).
        case questions
        /// Answer question `question` with `accept`.
        case answer
        /// List the devices here and the paired devices away, one `device` reply each.
        case peers
        /// The address of the daemon's web page, with its token, as a `link` reply; with `paths`, the page's
        /// address for sending those files, to a device picked there.
        case ui
        /// A new code for a phone: a new pass for the page for a phone (the one before no longer opens it), and
        /// that page's addresses with it, as `link` replies.
        case phone
        /// Follow the daemon's chat: every line it says, as `line` replies, until the command closes the
        /// connection (docs/daemon.md, "Chat").
        case chat
        /// A line typed in a chat (`text`): said to every connected peer, or a chat command carried out.
        case say
        /// Follow the daemon's clipboard sync: who is connected and the newest items, then every line of its log,
        /// as `line` replies, until the command closes the connection (docs/daemon.md, "The clipboard"); with `peek`,
        /// the first line only; exit 69 with no reply when the daemon does not sync the clipboard.
        case clipboard
        /// Share what is on the daemon's clipboard (only its `itemType`) with the machine `to` names (none: the only
        /// one connected), which is asked; with `peek`, only find that machine and reply its name (the command asks
        /// its user first). The item must still have `digest` (``ClipboardItemFilter/digest(of:)``), the one its
        /// user saw. Exit 69 with no reply when the daemon does not sync the clipboard (`huddle clip share`, docs/daemon.md,
        /// "The clipboard").
        case clipShare
        /// Take the items shared with the daemon's clipboard (`huddle clip receive`): from the machine `to` names
        /// only, when it names one; `count` of them (none: until the command leaves); each asked about with a
        /// `question` reply unless `accept` is true, then put on the clipboard or saved to the absolute path in
        /// `paths` (its `itemType` representation). Exit 69 with no reply when the daemon does not sync the
        /// clipboard (docs/daemon.md, "The clipboard").
        case clipReceive
        /// Connect the daemon's session to the Huddle device `to` names (`huddle peers`' picker); one not paired
        /// asks to compare the code, as a question of the daemon's.
        case connect
    }

    public var version: Int
    public var command: Command
    public var paths: [String]?
    /// Whether the replies carry JSON records (`record`) instead of lines where a command's `--json` would.
    public var json: Bool?
    public var text: String?
    public var pin: String?
    public var to: [String]?
    public var waitSeconds: Double?
    public var lifetimeSeconds: Int?
    public var hosts: [String]?
    public var link: String?
    public var id: String?
    public var question: Int?
    public var accept: Bool?
    public var itemType: String?
    public var digest: String?
    public var peek: Bool?
    /// How many items to take (`clipReceive`).
    public var count: Int?
    /// With `send`: the progress as `progress` replies (numbers, each hundredth) instead of lines or records.
    public var progress: Bool?

    public init(_ command: Command) {
        self.version = ControlProtocol.version
        self.command = command
    }
}

/// One line of the daemon's answer: words to print (`line`, `error`), a pairing link to show (`link`), a device
/// (`device`), or the end (`exit`, the command's exit status).
public struct ControlReply: Codable, Sendable, Equatable {
    public var version = ControlProtocol.version
    public var line: String?
    public var error: String?
    public var link: String?
    /// A device, in answer to `peers`.
    public var device: DaemonDevice?
    /// One JSON record, as `--json` prints it (one line), for a request that asked for `json`.
    public var record: String?
    /// The daemon's question `line` asks, for the command to put to its user and answer (`answer`).
    public var question: Int?
    /// How far a send is, for a request that asked for `progress`.
    public var progress: ControlProgress?
    public var exit: Int32?

    public init(
        line: String? = nil,
        error: String? = nil,
        link: String? = nil,
        device: DaemonDevice? = nil,
        record: String? = nil,
        question: Int? = nil,
        progress: ControlProgress? = nil,
        exit: Int32? = nil
    ) {
        (self.line, self.error, self.link, self.device, self.record) = (line, error, link, device, record)
        (self.question, self.progress, self.exit) = (question, progress, exit)
    }

    public static func line(_ text: String) -> ControlReply { ControlReply(line: text) }
    public static func error(_ text: String) -> ControlReply { ControlReply(error: text) }
    public static func end(_ status: Int32) -> ControlReply { ControlReply(exit: status) }
}

/// How far a send is: bytes sent of all it sends (`progress` replies).
public struct ControlProgress: Codable, Sendable, Equatable {
    public var completed: UInt64
    public var total: UInt64

    public init(completed: UInt64, total: UInt64) {
        (self.completed, self.total) = (completed, total)
    }

    /// The hundredths sent, 0 to 100 (100 for an empty send).
    public var percent: Int { total == 0 ? 100 : Int(min(completed, total) * 100 / total) }

    /// Which steps are worth a reply: the first, then each one into another hundredth, and the end — at most 101
    /// for a send, whatever its size, so a page's bar moves without a reply per chunk.
    public struct Steps: Sendable, Equatable {
        var shown: Int?

        public init() {}

        /// Whether `step` is shown (and from now on the last shown).
        public mutating func admit(_ step: ControlProgress) -> Bool {
            guard shown != step.percent else { return false }
            shown = step.percent
            return true
        }
    }
}
