/// The fixed rules of one arena: its size, the tick, how fast players move and how close counts as touching a coin.
///
/// Every peer in a session must use the same configuration; the defaults are the game's.
public struct ArenaConfiguration: Hashable, Sendable {
    /// Columns of the playing field (walls not counted). 48 fits an 80-column terminal with room for the score line.
    public var columns: Int32
    /// Rows of the playing field (walls not counted). 16 leaves room for the score line in a 24-row terminal.
    public var rows: Int32
    /// Milliseconds per tick: 50 ms, a 20 Hz simulation.
    public var tickMilliseconds: Int64
    /// Units moved per tick on each axis: 96 units (3/8 cell), 7.5 cells a second at 20 Hz.
    public var speed: Int32
    /// A player touches a coin when both axis distances are at most this: 192 units (3/4 cell). Twice the radius is
    /// more than ``speed``, so a player can never step over a coin in one tick.
    public var pickupRadius: Int32

    public init(
        columns: Int32 = 48,
        rows: Int32 = 16,
        tickMilliseconds: Int64 = 50,
        speed: Int32 = 96,
        pickupRadius: Int32 = 192
    ) {
        self.columns = Swift.max(1, columns)
        self.rows = Swift.max(1, rows)
        self.tickMilliseconds = Swift.max(1, tickMilliseconds)
        self.speed = Swift.max(0, speed)
        self.pickupRadius = Swift.max(0, pickupRadius)
    }

    /// The smallest coordinate a player's centre may take: half a cell in from the wall.
    public var minimum: Int32 { ArenaPosition.unitsPerCell / 2 }
    /// The largest x a player's centre may take: half a cell in from the right wall.
    public var maximumX: Int32 { self.columns &* ArenaPosition.unitsPerCell &- ArenaPosition.unitsPerCell / 2 }
    /// The largest y a player's centre may take: half a cell in from the bottom wall.
    public var maximumY: Int32 { self.rows &* ArenaPosition.unitsPerCell &- ArenaPosition.unitsPerCell / 2 }

    /// A position moved inside the walls, each axis clamped on its own.
    public func clamped(_ position: ArenaPosition) -> ArenaPosition {
        ArenaPosition(
            x: Swift.min(Swift.max(position.x, self.minimum), self.maximumX),
            y: Swift.min(Swift.max(position.y, self.minimum), self.maximumY)
        )
    }
}
