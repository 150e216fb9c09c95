import Huddle
public import HuddleClipboard

extension ClipboardSyncEvent {
    /// The event's line in the `clip sync` log, and whether it tells of something refused (shown even when only
    /// refusals and problems are).
    public var text: (line: String, isRefusal: Bool) {
        switch self {
        case .peerConnected(_, let name): ("+ \(name) connected", false)
        case .peerDisconnected(_, let name): ("- \(name) left", false)
        case .shared(let summary, let peers): ("→ shared \(summary) with \(peers.joined(separator: ", "))", false)
        case .taken(let summary, let peer): ("← \(peer)'s copy is on the clipboard: \(summary)", false)
        case .notShared(let summary, let reason): ("! not shared (\(summary)): \(reason)", true)
        case .notTaken(let summary, let peer, let reason):
            ("! not taken from \(peer)\(summary.map { " (\($0))" } ?? ""): \(reason)", true)
        case .refusedByPeer(let peer, let reason): ("! \(peer) refused our copy: \(reason)", true)
        case .shareOffered(let offer):
            ("! declined a share from \(offer.peerName): use huddle clip receive to take shared items", true)
        case .problem(let text): ("! \(text)", true)
        case .progress: ("", false)
        case .connectionRequest(let request): ("? \(request.displayName) asks to pair", false)
        }
    }
}
