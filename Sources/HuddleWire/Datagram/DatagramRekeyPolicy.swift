/// When a sender should move to the next key epoch (`docs/security.md` §3.7).
///
/// The defaults, 2^32 packets or 120 seconds, whichever comes first, are far below the ChaCha20-Poly1305 limits
/// (RFC 9001 §6.6); the time bound matches WireGuard's `REKEY_AFTER_TIME` and keeps a captured key short-lived.
public struct DatagramRekeyPolicy: Hashable, Sendable {
    /// Rekey once this many packets have been sealed in the current epoch.
    public var packetLimit: UInt64
    /// Rekey once the current epoch is this old.
    public var maximumEpochAge: Duration

    /// Creates a policy; the defaults are 2^32 packets and 120 seconds.
    public init(packetLimit: UInt64 = 1 << 32, maximumEpochAge: Duration = .seconds(120)) {
        self.packetLimit = packetLimit
        self.maximumEpochAge = maximumEpochAge
    }

    /// Whether an epoch that has sealed `packetsInEpoch` packets and is `epochAge` old should be replaced.
    public func isRekeyDue(packetsInEpoch: UInt64, epochAge: Duration) -> Bool {
        packetsInEpoch >= packetLimit || epochAge >= maximumEpochAge
    }
}
