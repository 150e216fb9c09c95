/// What became of one received packet. Opening never throws: a bad packet is a counted drop, not an error
/// (`docs/security.md` §3.7 and §3.9, `replayDetected` is a counter only).
public enum DatagramOpenResult: Hashable, Sendable {
    /// The packet authenticated and had not been seen before; here is its payload.
    case delivered([UInt8])
    /// The packet was discarded, for this reason.
    case dropped(DatagramDropReason)
}
