/// A point in the arena in fixed-point cells: ``ArenaPosition/unitsPerCell`` units make one cell.
///
/// Integers, not floating point, so that every peer computes bit-identical positions from the same inputs.
/// The centre of cell `(column, row)` is `(column * 256 + 128, row * 256 + 128)`.
public struct ArenaPosition: Hashable, Sendable, CustomStringConvertible {
    /// Units in one cell: 1/256 of a cell is far finer than a terminal can show and keeps products inside `Int32`.
    public static let unitsPerCell: Int32 = 256

    /// Horizontal position in units, 0 at the left edge of the arena.
    public var x: Int32
    /// Vertical position in units, 0 at the top edge of the arena.
    public var y: Int32

    public init(x: Int32, y: Int32) {
        self.x = x
        self.y = y
    }

    /// The centre of a cell.
    public init(column: Int32, row: Int32) {
        self.x = column &* Self.unitsPerCell &+ Self.unitsPerCell / 2
        self.y = row &* Self.unitsPerCell &+ Self.unitsPerCell / 2
    }

    /// The column this point lies in (rounding towards negative infinity).
    public var column: Int32 { Self.floorDivide(self.x) }
    /// The row this point lies in (rounding towards negative infinity).
    public var row: Int32 { Self.floorDivide(self.y) }

    public var description: String { "(\(self.x), \(self.y))" }

    private static func floorDivide(_ value: Int32) -> Int32 {
        value >= 0 ? value / unitsPerCell : -((-(value &+ 1)) / unitsPerCell) - 1
    }
}

/// Where a player wants to move this tick: each axis is -1, 0 or +1 (diagonals move on both axes at once).
public struct ArenaDirection: Hashable, Sendable {
    /// -1 left, 0 still, +1 right.
    public private(set) var dx: Int8
    /// -1 up, 0 still, +1 down.
    public private(set) var dy: Int8

    /// Any value is clamped to -1...1, so a bad input cannot make a player fast.
    public init(dx: Int8, dy: Int8) {
        self.dx = Swift.max(-1, Swift.min(1, dx))
        self.dy = Swift.max(-1, Swift.min(1, dy))
    }

    public static let none = Self(dx: 0, dy: 0)
    public static let up = Self(dx: 0, dy: -1)
    public static let down = Self(dx: 0, dy: 1)
    public static let left = Self(dx: -1, dy: 0)
    public static let right = Self(dx: 1, dy: 0)
}
