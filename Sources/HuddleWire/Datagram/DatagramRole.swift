/// Which end of the TLS connection a peer was: the one that dialled, or the one that accepted.
public enum DatagramRole: Hashable, Sendable {
    /// The side that opened the TCP connection (`I` in `docs/security.md` §3.5, §3.7).
    case initiator
    /// The side that accepted it (`R`).
    case responder
}
