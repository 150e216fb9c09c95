public import Huddle
public import HuddleForeign
import HuddleWire

/// The peer picker's list: the session's peers, numbered in the order found, then the LocalSend and KDE Connect
/// devices nearby, apart (never taken for a peer of the session).
public struct PeerRoster: Sendable {
    /// The session's peers, in the order found: number `n` is `peers[n - 1]`.
    public private(set) var peers: [PeerID] = []
    var deviceOrder: [ForeignPeer.ID] = []
    var devices: [ForeignPeer.ID: ForeignPeer] = [:]

    public init() {}

    /// Notes a peer of the session (found again: keeps its number).
    public mutating func found(_ peer: PeerID) {
        if !peers.contains(peer) { peers.append(peer) }
    }

    /// Notes a foreign device, or its new address or name.
    public mutating func found(_ device: ForeignPeer) {
        if devices.updateValue(device, forKey: device.id) == nil { deviceOrder.append(device.id) }
    }

    /// The peer a typed line picks: its number in the list; nil for anything else.
    public func peer(picked line: String) -> PeerID? {
        guard let number = Int(line), number >= 1, number <= peers.count else { return nil }
        return peers[number - 1]
    }

    /// The list as shown: `  1) Bob (0a1b2c3d) — connected [players=2]` (with its lobby, if any), then `  - Pixel (…) — not pinned, at 10.0.0.2:53317`.
    /// `trust` reads a device's pin (nil: the pins cannot be read).
    public func lines(of session: PeerSession, trust: (ForeignPeer) -> ForeignTrust?) async -> [String] {
        var lines: [String] = []
        for peer in peers {
            guard let info = await session.info(for: peer) else { continue }
            let dialled = info.dialledAt.map { " (dialled at \($0), not found nearby)" } ?? ""
            let device = info.deviceID?.shortID ?? "?"
            let lobby = info.lobby.isEmpty ? "" : " [\(info.lobby)]"
            lines.append(
                "  \(lines.count + 1)) \(info.displayName) (\(device)) — \(info.state.rawValue)\(lobby)\(dialled)"
            )
        }
        for id in deviceOrder {
            guard let device = devices[id] else { continue }
            let trust = (trust(device) ?? .unpinned).phrase
            lines.append("  - \(device.name) (\(device.identityText)) — \(trust), at \(device.address)")
        }
        return lines
    }
}

extension PeerSessionEvent {
    /// A notice about the session (pairing paused, a `--peer` address that does not answer, a pairing link used,
    /// an error) in words and as its JSON record; nil for the other events.
    public var notice: (line: String, record: PeerEventRecord)? {
        switch self {
        case .pairingPaused(let pause):
            ("! \(pause)", .pairingPaused(pause))
        case .addressUnreachable(let address, let error):
            (
                "! \(DirectAddressText.unreachable(address, error))",
                .unreachable(address, message: DirectAddressText.reason(error))
            )
        case .pairedByLink(let peer, let device):
            ("* paired with \(device.shortID) by the pairing link: verified", .pairedByLink(peer, device: device))
        case .peerError(let peer, let error):
            ("! \(error)", .error(error, peer: peer))
        default:
            nil
        }
    }
}
