/// Movement and touching, one fixed tick at a time.
public enum ArenaPhysics {
    /// Where a player ends up after one tick: `speed` units along each axis of `direction`, then clamped to the
    /// walls. A player pushing into a wall slides along it.
    public static func move(
        _ position: ArenaPosition,
        _ direction: ArenaDirection,
        in configuration: ArenaConfiguration
    ) -> ArenaPosition {
        let moved = ArenaPosition(
            x: position.x &+ Int32(direction.dx) &* configuration.speed,
            y: position.y &+ Int32(direction.dy) &* configuration.speed
        )
        return configuration.clamped(moved)
    }

    /// Whether a player at `player` touches a coin at `coin`: both axis distances at most the pickup radius.
    public static func touches(
        _ player: ArenaPosition,
        coin: ArenaPosition,
        in configuration: ArenaConfiguration
    ) -> Bool {
        let dx = Int64(player.x) - Int64(coin.x)
        let dy = Int64(player.y) - Int64(coin.y)
        let radius = Int64(configuration.pickupRadius)
        return Swift.abs(dx) <= radius && Swift.abs(dy) <= radius
    }
}
