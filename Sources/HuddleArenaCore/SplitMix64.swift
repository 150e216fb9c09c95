/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny seeded generator whose output every peer can reproduce.
///
/// The core never draws randomness itself; callers inject one of these (or any `RandomNumberGenerator`), so the
/// same seed gives the same game.
public struct SplitMix64: RandomNumberGenerator, Hashable, Sendable {
    /// The generator's whole state: the next output is a mix of `state` plus the golden-ratio increment.
    public private(set) var state: UInt64

    public init(seed: UInt64) {
        self.state = seed
    }

    /// The next 64 bits of the sequence.
    public mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(self.state)
    }

    /// The SplitMix64 finaliser on its own: a bijective hash of 64 bits, used to derive values from (seed, index).
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` from 64 random bits, by multiply-shift (no modulo bias worth speaking of for small
    /// bounds, and no loop, so it is the same on every peer). Returns 0 when `bound` is 0.
    public static func reduce(_ bits: UInt64, below bound: UInt64) -> UInt64 {
        bits.multipliedFullWidth(by: bound).high
    }
}
