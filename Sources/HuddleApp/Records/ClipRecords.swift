import Foundation
import Huddle
public import HuddleClipboard
public import HuddlePasteboard
public import HuddleTransport

// The JSON objects of `clip sync`, `pasteboard`, `share` and `trust` (one per line with `--json`).

/// A `clip sync` event (``ClipboardSyncEvent``) as JSON; the fields an event has not are left out.
public struct ClipSyncRecord: Encodable, Sendable, Equatable {
    public var event: String
    public var peer: String?
    public var peers: [String]?
    /// The item's types, as MIME types where known.
    public var types: [String]?
    public var bytes: Int?
    /// The item's stamp in sync ("" when it has none).
    public var stamp: String?
    public var reason: String?
    public var text: String?

    init(_ event: String) { self.event = event }

    /// A line of status (`status`).
    public static func status(_ text: String) -> Self {
        var record = Self("status")
        record.text = text
        return record
    }

    /// Every event but `progress` (``ProgressRecord/init(clipItem:peer:)``).
    public init(_ event: ClipboardSyncEvent) {
        switch event {
        case .peerConnected(_, let name): self.init("connected", peer: name)
        case .peerDisconnected(_, let name): self.init("disconnected", peer: name)
        case .shared(let summary, let peers):
            self.init("shared", summary: summary)
            self.peers = peers
        case .taken(let summary, let peer): self.init("taken", summary: summary, peer: peer)
        case .notShared(let summary, let reason):
            self.init("not-shared", types: Self.types(summary), bytes: summary.byteCount, reason: reason)
        case .notTaken(let summary, let peer, let reason):
            self.init("not-taken", peer: peer, types: summary.map(Self.types) ?? [], reason: reason)
        case .refusedByPeer(let peer, let reason): self.init("refused-by-peer", peer: peer, reason: reason)
        case .shareOffered(let offer):
            self.init("share-declined", peer: offer.peerName, types: Self.types(offer.summary))
        case .problem(let text):
            self.init("problem")
            self.text = text
        case .progress(_, let peer): self.init("progress", peer: peer)
        case .connectionRequest(let request): self.init("pairing", peer: request.displayName)
        }
    }

    init(_ event: String, summary: ClipItemSummary, peer: String? = nil) {
        self.init(event, peer: peer, types: Self.types(summary), bytes: summary.byteCount)
        self.stamp = summary.stamp?.description ?? ""
    }

    init(_ event: String, peer: String? = nil, types: [String]? = nil, bytes: Int? = nil, reason: String? = nil) {
        self.event = event
        self.peer = peer
        self.types = types
        self.bytes = bytes
        self.reason = reason
    }

    static func types(_ summary: ClipItemSummary) -> [String] {
        summary.types.map { $0.mimeType ?? $0.rawValue }
    }
}

/// One named pasteboard (`pasteboard list`); times in seconds since 1970.
public struct PasteboardInfoRecord: Encodable, Sendable, Equatable {
    public var name: String
    public var persistent: Bool
    public var bytes: Int
    public var types: [String]
    public var secret: Bool
    public var created: Int
    public var expires: Int?

    public init(_ info: NamedPasteboardInfo) {
        self.name = info.name
        self.persistent = info.persistent
        self.bytes = info.byteCount
        self.types = info.types.map(\.rawValue)
        self.secret = info.isSecret
        self.created = Int(info.created.timeIntervalSince1970)
        self.expires = info.expires.map { Int($0.timeIntervalSince1970) }
    }
}

/// A clipboard change (`pasteboard watch`): a secret item's text is never shown; a text's first 1,000 characters.
public struct PasteboardChangeRecord: Encodable, Sendable, Equatable {
    public var sequence: Int
    public var types: [String]
    public var secret: Bool
    public var empty: Bool
    public var bytes: Int
    public var text: String?

    public init(_ change: PasteboardChange) {
        self.sequence = change.sequence
        self.types = change.types.map(\.rawValue)
        self.secret = change.isSecret
        self.empty = change.isEmpty
        self.bytes = change.item.byteCount
        self.text = change.isSecret ? nil : change.item.string.map { String($0.prefix(1000)) }
    }
}

/// A `share` event: `sharing` (where to look), `request` (a browser asks), `downloaded` (a file was taken).
public struct ShareRecord: Encodable, Sendable, Equatable {
    public var event: String
    public var urls: [String]?
    public var files: Int?
    public var pin: Bool?
    public var host: String?
    public var client: String?
    public var file: String?

    public static func sharing(urls: [String], files: Int, pin: Bool) -> Self {
        Self(event: "sharing", urls: urls, files: files, pin: pin)
    }

    public static func request(host: String, client: String?) -> Self {
        Self(event: "request", host: host, client: client ?? "")
    }

    public static func downloaded(_ file: String, by host: String) -> Self {
        Self(event: "downloaded", host: host, file: file)
    }
}

/// A known device (`trust list`); times in ISO 8601.
public struct TrustRecordLine: Encodable, Sendable, Equatable {
    public var deviceID: String
    public var name: String
    public var trust: String
    public var firstSeen: String
    public var lastSeen: String

    public init(_ record: TrustRecord) {
        let formatter = ISO8601DateFormatter()
        self.deviceID = record.deviceID
        self.name = record.displayName
        self.trust = record.trust.rawValue
        self.firstSeen = formatter.string(from: record.firstSeen)
        self.lastSeen = formatter.string(from: record.lastSeen)
    }
}
