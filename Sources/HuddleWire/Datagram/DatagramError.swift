/// Failures of the datagram layer that are not per-packet drops (`docs/security.md` §3.7).
///
/// A received packet never throws: it yields a ``DatagramOpenResult``. These errors come from building keys
/// or from the send side. An oversized payload throws ``PeerWireError/datagramTooLarge(limit:size:)`` instead.
public enum DatagramError: Error, Hashable, Sendable {
    /// A key-schedule input had the wrong length.
    case invalidInputLength(name: String, expected: Int, actual: Int)
    /// The sender has sealed 2^62 packets in this session; the session must be replaced, never reused.
    case packetLimitReached
}
