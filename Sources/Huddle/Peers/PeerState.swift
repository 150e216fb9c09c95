/// Where a peer is, in the terms of GKSession (states are not exclusive over time; a peer has one at a time).
public enum PeerState: String, Hashable, Sendable, CaseIterable {
    /// Found on the network, not connected.
    case available
    /// No longer advertised.
    case unavailable
    /// A connection is being made (TLS, pairing, decisions).
    case connecting
    case connected
    /// A connection ended.
    case disconnected
}
