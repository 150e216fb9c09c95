/// Where coin number `k` lies: a pure function of the session's seed and `k`.
///
/// Every peer computes the same position for the same coin, so coins never travel on the wire; only claims do.
public enum ArenaCoins {
    /// The centre of the cell of coin `coin` under `seed`, always inside the walls.
    ///
    /// The rule: `bits = SplitMix64.mix(seed ^ SplitMix64.mix(UInt64(coin)))`; the column is
    /// `reduce(bits, below: columns)` and the row `reduce(mix(bits), below: rows)`, where `reduce` takes the high 64
    /// bits of the 128-bit product.
    public static func position(
        ofCoin coin: UInt32,
        seed: UInt64,
        in configuration: ArenaConfiguration
    )
        -> ArenaPosition
    {
        let bits = SplitMix64.mix(seed ^ SplitMix64.mix(UInt64(coin)))
        let column = SplitMix64.reduce(bits, below: UInt64(configuration.columns))
        let row = SplitMix64.reduce(SplitMix64.mix(bits), below: UInt64(configuration.rows))
        return ArenaPosition(column: Int32(truncatingIfNeeded: column), row: Int32(truncatingIfNeeded: row))
    }
}
