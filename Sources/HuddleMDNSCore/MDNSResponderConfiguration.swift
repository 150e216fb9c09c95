public import NIOCore

/// Timings, TTLs and limits of a responder, with the RFC's values as defaults.
public struct MDNSResponderConfiguration: Sendable {
    /// TTL of records whose owner or data is a host name: A, AAAA, SRV (RFC 6762 §10: 120 s).
    public var hostRecordTTL: UInt32 = 120
    /// TTL of other records: PTR, TXT (RFC 6762 §10: 75 minutes).
    public var otherRecordTTL: UInt32 = 4500
    /// Gap between probes (RFC 6762 §8.1: 250 ms).
    public var probeInterval: TimeAmount = .milliseconds(250)
    /// Probes sent before a name is taken (RFC 6762 §8.1: 3).
    public var probeCount = 3
    /// Longest random wait before the first probe (RFC 6762 §8.1: 0–250 ms).
    public var maxInitialProbeDelay: TimeAmount = .milliseconds(250)
    /// Announcements after probing; at least 2, one second apart then doubling (RFC 6762 §8.3). 3 is the
    /// ecosystem's choice (mDNSResponder sends 4, Avahi 3).
    public var announceCount = 3
    /// Goodbye packets sent on unregister (RFC 6762 §10.1 asks for one; 3, 125 ms apart, survives a lost packet).
    public var goodbyeCount = 3
    public var goodbyeInterval: TimeAmount = .milliseconds(125)
    /// Largest DNS payload in one IPv4 packet: 1500-byte MTU − 20 (IP) − 8 (UDP) (RFC 6762 §17).
    public var maxIPv4Payload = 1472
    /// Largest DNS payload in one IPv6 packet: 1500 − 40 − 8.
    public var maxIPv6Payload = 1452
    /// Conflicts within ``conflictWindow`` after which probing slows to one attempt per ``conflictBackoff``
    /// (RFC 6762 §8.1: 15 in 10 s, then 5 s).
    public var conflictLimit = 15
    public var conflictWindow: TimeAmount = .seconds(10)
    public var conflictBackoff: TimeAmount = .seconds(5)
    /// Bound on senders whose truncated known-answer lists are being merged (RFC 6762 §7.2).
    public var maxTruncatedSenders = 512
    /// Bound on continuation packets merged per sender.
    public var maxTruncatedPacketsPerSender = 16

    /// Most re-announcements of one service's changed records per minute (RFC 6762 §8.4: 10).
    public var maxUpdatesPerMinute = 10
    /// Whether to publish reverse-mapping PTRs (`d.c.b.a.in-addr.arpa.` → host) for our addresses
    /// (RFC 6762 §4). Off by default: the system's own responder (Avahi, mDNSResponder) owns the reverse mapping
    /// of the machine's addresses, and two responders claiming it conflict without end.
    public var publishReverseMapping = false

    public init() {}
}
