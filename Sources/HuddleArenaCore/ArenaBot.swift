/// A computer player that walks towards the live coin, with a little seeded jitter so bots do not move in lockstep.
///
/// The rule, per call: on each axis step towards the target when more than half a step away, else stay. Then, with
/// probability `1 / jitterOneIn`, one axis (chosen at random) takes a random value in -1...1 instead. Every call
/// draws exactly three numbers from the generator, so two bots with the same seed stay in step whatever they see.
public struct ArenaBot: Sendable {
    /// The bot's own seeded generator.
    public var generator: SplitMix64
    /// One in how many decisions is jittered; 0 turns jitter off. The default 6 wobbles visibly but rarely.
    public var jitterOneIn: UInt64

    public init(seed: UInt64, jitterOneIn: UInt64 = 6) {
        self.generator = SplitMix64(seed: seed)
        self.jitterOneIn = jitterOneIn
    }

    /// The input for the player `player` of `match`: towards the match's live coin.
    public mutating func direction(for player: ArenaPlayer, in match: ArenaMatch) -> ArenaDirection {
        self.direction(from: player.position, toward: match.liveCoinPosition, in: match.configuration)
    }

    /// The input for a player at `position` heading for `target`.
    public mutating func direction(
        from position: ArenaPosition,
        toward target: ArenaPosition,
        in configuration: ArenaConfiguration
    ) -> ArenaDirection {
        Self.direction(
            from: position,
            toward: target,
            in: configuration,
            jitterOneIn: self.jitterOneIn,
            using: &self.generator
        )
    }

    /// The rule itself, with any generator.
    public static func direction<Generator: RandomNumberGenerator>(
        from position: ArenaPosition,
        toward target: ArenaPosition,
        in configuration: ArenaConfiguration,
        jitterOneIn: UInt64,
        using generator: inout Generator
    ) -> ArenaDirection {
        let deadZone = Int64(configuration.speed / 2)
        var dx = Self.axis(Int64(target.x) - Int64(position.x), deadZone: deadZone)
        var dy = Self.axis(Int64(target.y) - Int64(position.y), deadZone: deadZone)
        let roll = generator.next()
        let axis = generator.next()
        let value = Int8(truncatingIfNeeded: SplitMix64.reduce(generator.next(), below: 3)) - 1
        if jitterOneIn > 0, SplitMix64.reduce(roll, below: jitterOneIn) == 0 {
            if axis & 1 == 0 { dx = value } else { dy = value }
        }
        return ArenaDirection(dx: dx, dy: dy)
    }

    private static func axis(_ distance: Int64, deadZone: Int64) -> Int8 {
        if distance > deadZone { return 1 }
        if distance < -deadZone { return -1 }
        return 0
    }
}
