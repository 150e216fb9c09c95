import HuddleWire

/// The six-digit code both users compare at first contact (`docs/security.md` §3.5): derived by both sides from
/// the handshake, equal only when no one sits in the middle.
public struct PairingCode: Hashable, Sendable, CustomStringConvertible {
    /// The code as a number, below 1,000,000.
    public let value: UInt32

    public init?(value: UInt32) {
        guard value < 1_000_000 else { return nil }
        self.value = value
    }

    init(_ sas: ShortAuthenticationString) {
        value = sas.code
    }

    /// The six digits, zero-padded: "071805".
    public var digits: String {
        let text = String(value)
        return String(repeating: "0", count: 6 - text.count) + text
    }

    /// As people read it: two groups of three, "071 805".
    public var description: String { "\(digits.prefix(3)) \(digits.suffix(3))" }
}
