public import HuddleWire

/// Why a peer connection failed or ended.
public enum PeerConnectionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The peer broke the wire protocol, refused, or the handshake failed; see the wire error.
    case wire(PeerWireError)
    /// TCP could not connect.
    case connectFailed(String)
    /// TLS failed (wrong version, no certificate, refused key, garbage).
    case tls(String)
    /// TLS did not complete within the deadline (`docs/security.md` §2: NIOSSL has none of its own).
    case tlsHandshakeTimedOut
    /// We dialled a peer whose key we pinned, and another key answered (`docs/wire-protocol.md` §2.4).
    case peerIdentityMismatch(expected: DeviceID, presented: DeviceID)
    /// The peer's key is blocked in the trust store.
    case blocked(DeviceID)
    /// The peer presented a certificate we do not accept (not one P-256 key).
    case unacceptableCertificate(String)
    /// The peer stayed silent longer than the disconnect timeout.
    case unresponsive
    /// The connection dropped without a goodbye.
    case connectionLost
    /// A send was attempted before the connection was accepted, or after it ended.
    case notConnected

    public var description: String {
        switch self {
        case .wire(let error): "\(error)"
        case .connectFailed(let detail): "could not connect: \(detail)"
        case .tls(let detail): "TLS failed: \(detail)"
        case .tlsHandshakeTimedOut: "TLS handshake timed out"
        case .peerIdentityMismatch(let expected, let presented):
            "the peer's key changed: expected device \(expected.shortID), got \(presented.shortID) — refused"
        case .blocked(let id): "device \(id.shortID) is blocked"
        case .unacceptableCertificate(let detail): "unacceptable certificate: \(detail)"
        case .unresponsive: "the peer stopped responding"
        case .connectionLost: "the connection was lost"
        case .notConnected: "not connected"
        }
    }
}
