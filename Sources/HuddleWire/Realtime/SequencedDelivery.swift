/// Which `unreliableSequenced` updates a receiver delivers: on each channel, only one newer than the newest it
/// delivered there, so a game never applies a stale state after a fresher one (`docs/realtime.md`, "Delivery
/// modes").
///
/// Sequence numbers are 16 bits and wrap: "newer" is RFC 1982 serial number arithmetic (§3.2), so 2 is newer than
/// 65,535, and a number exactly half the space away is neither (refused). Pure: no clock, no I/O.
public struct SequencedDelivery: Hashable, Sendable {
    /// The newest sequence number delivered on each channel that has had one.
    public private(set) var newest: [UInt8: UInt16] = [:]

    public init() {}

    /// Whether the update numbered `sequence` on `channel` is delivered; it becomes that channel's newest if so.
    public mutating func admit(_ sequence: UInt16, on channel: UInt8) -> Bool {
        if let last = newest[channel], !Self.isNewer(sequence, than: last) { return false }
        newest[channel] = sequence
        return true
    }

    /// `a` follows `b` in RFC 1982 serial number arithmetic with SERIAL_BITS = 16.
    public static func isNewer(_ a: UInt16, than b: UInt16) -> Bool {
        let distance = a &- b
        return distance != 0 && distance < 0x8000
    }
}
