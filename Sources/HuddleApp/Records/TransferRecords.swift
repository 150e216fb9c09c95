public import Huddle
public import HuddleForeign

// The JSON objects of `send` and `receive` (one per line with `--json`; docs/design.md, "JSON output"). A field that is
// nil is left out.

/// `progress`: where a transfer stands, in either direction and for any protocol.
public struct ProgressRecord: Encodable, Sendable, Equatable {
    public var event = "progress"
    /// The transfer (none for a clipboard item).
    public var id: String?
    /// `send` or `receive`.
    public var direction: String
    public var completed: UInt64
    public var total: UInt64
    public var startedAt: UInt64?
    public var bytesPerSecond: Int?
    public var etaSeconds: Int?
    /// The file (a directory's file being moved now, or a foreign transfer's file).
    public var file: String?
    public var fileCompleted: UInt64?
    public var fileTotal: UInt64?
    public var filesCompleted: Int?
    public var fileCount: Int?
    /// The peer's name (clip sync's large items).
    public var peer: String?

    /// A Huddle transfer's progress, with the rate and the seconds left as ``TransferProgress/estimate(elapsed:)``
    /// gives them.
    public init(_ progress: TransferProgress, bytesPerSecond: Double, secondsLeft: Double?) {
        self.id = "\(progress.id)"
        self.direction = progress.direction == .sending ? "send" : "receive"
        self.completed = progress.completed
        self.total = progress.total
        self.startedAt = progress.startedAt
        self.bytesPerSecond = Int(bytesPerSecond)
        self.etaSeconds = secondsLeft.map { Int($0.rounded(.up)) }
        if let file = progress.file {
            self.file = file.path
            self.fileCompleted = file.completed
            self.fileTotal = file.total
            self.filesCompleted = file.filesCompleted
            self.fileCount = file.fileCount
        }
    }

    /// A LocalSend or KDE Connect transfer's progress.
    public init(_ progress: ForeignProgress) {
        self.id = progress.offerID
        self.file = progress.fileName
        self.direction = progress.isOutgoing ? "send" : "receive"
        self.completed = progress.completed
        self.total = progress.total
    }

    /// A clipboard item's progress to or from `peer`.
    public init(clipItem progress: TransferProgress, peer: String) {
        self.direction = progress.direction == .sending ? "send" : "receive"
        self.completed = progress.completed
        self.total = progress.total
        self.peer = peer
    }
}

/// `offer`: files, a directory or a text offered to this device, shown when its question comes up.
public struct OfferRecord: Encodable, Sendable, Equatable {
    public var event = "offer"
    public var id: String
    /// The file or directory (a foreign offer: its first file's); nil for a text.
    public var name: String?
    public var size: UInt64
    public var from: String
    public var files: Int
    public var directory: Bool
    /// A Huddle offer's resume key (``IncomingTransfer/contentKey``).
    public var key: String?
    public var `protocol`: String?
    /// The sender's certificate fingerprint ("" when it shows none).
    public var fingerprint: String?
    /// Every file's name (a foreign offer).
    public var names: [String]?
    /// True for a text.
    public var text: Bool?
    /// Whether a text goes to the clipboard too.
    public var clipboard: Bool?

    /// A Huddle peer's file or directory, from the peer named `from`.
    public init(_ transfer: IncomingTransfer, from: String) {
        self.id = "\(transfer.id)"
        self.name = transfer.name
        self.size = transfer.size
        self.from = from
        self.files = transfer.fileCount
        self.directory = transfer.isDirectory
        self.key = transfer.contentKey
    }

    /// A LocalSend or KDE Connect offer: its files, or its text (`clipboard`: whether it goes there too).
    public init(_ offer: ForeignOffer, clipboard: Bool) {
        self.id = offer.id
        self.from = offer.from.name
        self.directory = false
        self.protocol = offer.from.protocol.rawValue
        self.fingerprint = offer.from.fingerprint ?? ""
        if let text = offer.text {
            self.size = UInt64(text.utf8.count)
            self.files = 0
            self.text = true
            self.clipboard = clipboard
        } else {
            self.name = offer.files.first?.name ?? ""
            self.size = offer.totalSize
            self.files = offer.files.count
            self.names = offer.files.map(\.name)
        }
    }
}

/// `received`: a file or directory kept, and where.
public struct ReceivedRecord: Encodable, Sendable, Equatable {
    public var event = "received"
    public var id: String
    public var path: String
    public var files: Int
    public var directory: Bool
    public var `protocol`: String?

    public init(id: String, path: String, files: Int = 1, directory: Bool = false, protocol: String? = nil) {
        self.id = id
        self.path = path
        self.files = files
        self.directory = directory
        self.protocol = `protocol`
    }
}

/// `sent`: a file, a directory or a text verified by (or, for a foreign device, handed to) the receiver.
public struct SentRecord: Encodable, Sendable, Equatable {
    public var event = "sent"
    public var file: String?
    public var peer: String?
    public var `protocol`: String?
    public var text: Bool?
    public var directory: Bool?
    /// A directory's transfer and its counts: in it, and sent this run.
    public var id: String?
    public var files: Int?
    public var bytes: UInt64?
    public var filesSent: Int?
    public var bytesSent: UInt64?
    public var skipped: Int?

    /// A file sent to a Huddle peer (`peer` given when there are several) or a foreign device.
    public init(file: String, peer: String?, protocol: ForeignProtocol? = nil) {
        self.file = file
        self.peer = peer
        self.protocol = `protocol`?.rawValue
    }

    /// A text sent to a foreign device.
    public init(textTo peer: ForeignPeer) {
        self.text = true
        self.peer = peer.name
        self.protocol = peer.protocol.rawValue
    }

    /// A directory named `name` sent whole.
    public init(directory name: String, _ report: DirectoryTransferReport) {
        self.file = name
        self.directory = true
        self.id = "\(report.id)"
        self.files = report.fileCount
        self.bytes = report.totalSize
        self.filesSent = report.filesSent
        self.bytesSent = report.bytesSent
        self.skipped = report.skipped.count
    }
}

/// `skipped`: an entry of a directory that is not sent (a link, a socket, a device).
public struct SkippedRecord: Encodable, Sendable, Equatable {
    public var event = "skipped"
    public var file: String
    public var reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }
}

/// `failed`: a file (by name) or a transfer (by id) that did not go through, and why; `peer` when several peers
/// are sent to, or when a whole device failed.
public struct FailedRecord: Encodable, Sendable, Equatable {
    public var event = "failed"
    public var file: String?
    public var id: String?
    public var peer: String?
    public var error: String

    public init(file: String? = nil, id: String? = nil, peer: String? = nil, error: String) {
        self.file = file
        self.id = id
        self.peer = peer
        self.error = error
    }
}
