public import Huddle
public import HuddlePasteboard

/// What an item is, for people: its types and sizes, without its content.
public struct ClipItemSummary: Hashable, Sendable, CustomStringConvertible {
    public var types: [PasteboardType]
    public var byteCounts: [Int]
    /// The item's stamp in sync, when it has one (for logs that follow an item across machines).
    public var stamp: ClipStamp?

    public init(_ item: PasteboardItem, stamp: ClipStamp? = nil) {
        self.types = item.types
        self.byteCounts = item.representations.map(\.data.count)
        self.stamp = stamp
    }

    public var byteCount: Int { byteCounts.reduce(0, +) }

    /// `public.png (1.0 MiB), public.utf8-plain-text (12 B)`. Type names come from whoever made the item (a
    /// peer, too): terminal controls in them are made visible (``DisplayText/escaped(_:)``).
    public var description: String {
        zip(types, byteCounts).map {
            "\(DisplayText.escaped($0.mimeType ?? $0.rawValue)) (\(ByteCountText.describe($1)))"
        }
        .joined(separator: ", ")
    }
}

/// An item another machine shared on purpose (`huddle clip share`), waiting for this side to take or decline it.
public struct ClipShareOffer: Hashable, Sendable {
    public let peer: PeerID
    /// The sender's name, for display.
    public let peerName: String
    public let stamp: ClipStamp
    public let item: PasteboardItem

    public var summary: ClipItemSummary { ClipItemSummary(item) }
}

/// What clipboard sync did, for the user to see (every refusal comes with its reason).
public enum ClipboardSyncEvent: Sendable {
    /// A peer of the session connected.
    case peerConnected(PeerID, name: String)
    /// A connected peer left or dropped.
    case peerDisconnected(PeerID, name: String)
    /// A first contact asks to pair: answer with the session's `accept` / `deny` (after comparing the code).
    case connectionRequest(PeerConnectionRequest)
    /// A local copy was sent to these peers.
    case shared(ClipItemSummary, to: [String])
    /// A local copy was not sent, and why.
    case notShared(ClipItemSummary, reason: String)
    /// A peer's item was put on this machine's clipboard.
    case taken(ClipItemSummary, from: String)
    /// A peer's item was refused here, and why (the peer is told too).
    case notTaken(ClipItemSummary?, from: String, reason: String)
    /// A peer refused an item sent from here, and why.
    case refusedByPeer(String, reason: String)
    /// A peer shared an item on purpose: take it with ``ClipboardSync/acceptShare(_:)`` or decline it.
    case shareOffered(ClipShareOffer)
    /// A large item on its way (sent or received as a transfer): bytes done of the total.
    case progress(TransferProgress, peer: String)
    /// Something went wrong that did not stop sync (a clipboard read or write failed).
    case problem(String)
}
