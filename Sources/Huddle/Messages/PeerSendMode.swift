/// How a message travels (GKSession's data modes).
public enum PeerSendMode: Hashable, Sendable {
    /// Over TLS: ordered per peer, never lost while connected.
    case reliable
    /// As one sealed UDP datagram: may be lost or reordered, never duplicated or corrupted; at most
    /// ``PeerSession/maximumDatagramPayload`` bytes.
    case unreliable
}
