/// The arena drawn as lines of text: a wall box, the coin, the players, then a score line.
///
/// Pure: the executable positions the cursor and prints the lines. Player letters come from ``glyphs(for:)`` so
/// every peer draws the same player with the same letter.
public enum ArenaScreen {
    /// One player to draw.
    public struct Sprite: Hashable, Sendable {
        public var id: ArenaPlayerID
        public var name: String
        public var position: ArenaPosition
        public var score: Int

        public init(id: ArenaPlayerID, name: String, position: ArenaPosition, score: Int) {
            self.id = id
            self.name = name
            self.position = position
            self.score = score
        }
    }

    /// Letters A, B, C, … in ``ArenaPlayerID`` order; `?` after Z.
    public static func glyphs(for players: some Sequence<ArenaPlayerID>) -> [ArenaPlayerID: Character] {
        var glyphs: [ArenaPlayerID: Character] = [:]
        for (offset, id) in Set(players).sorted().enumerated() {
            glyphs[id] = offset < 26 ? Character(Unicode.Scalar(UInt8(65 + offset))) : "?"
        }
        return glyphs
    }

    /// The frame: `rows + 2` wall lines of `columns + 2` characters, then one score line.
    ///
    /// Walls are `+`, `-` and `|`, the coin `$`, empty cells spaces; a player's letter covers the coin, and of two
    /// players in one cell the later in ``ArenaPlayerID`` order shows. The score line lists `A name 3` per player
    /// in letter order. Names are shown with control characters replaced by `?`, so a peer cannot send terminal
    /// escapes. With `colour`, the coin and players are wrapped in ANSI SGR colour codes.
    public static func frame(
        configuration: ArenaConfiguration,
        coin: ArenaPosition?,
        players: [Sprite],
        colour: Bool = false
    ) -> [String] {
        let columns = Int(configuration.columns)
        let rows = Int(configuration.rows)
        let glyphs = Self.glyphs(for: players.map(\.id))
        let ordered = players.sorted { $0.id < $1.id }
        var cells = [[String]](repeating: [String](repeating: " ", count: columns), count: rows)
        if let coin, let cell = Self.cell(coin, columns: columns, rows: rows) {
            cells[cell.row][cell.column] = Self.paint("$", code: "1;33", colour: colour)
        }
        for (offset, player) in ordered.enumerated() {
            guard let cell = Self.cell(player.position, columns: columns, rows: rows) else { continue }
            let glyph = String(glyphs[player.id] ?? "?")
            cells[cell.row][cell.column] = Self.paint(glyph, code: "1;\(31 + offset % 6)", colour: colour)
        }
        let wall = "+" + String(repeating: "-", count: columns) + "+"
        var lines = [wall]
        for row in cells { lines.append("|" + row.joined() + "|") }
        lines.append(wall)
        let scores = ordered.map { "\(glyphs[$0.id] ?? "?") \(Self.printable($0.name)) \($0.score)" }
        lines.append(scores.joined(separator: "  "))
        return lines
    }

    /// A name with every control character (C0, DEL, C1) replaced by `?`.
    public static func printable(_ name: String) -> String {
        String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { scalar in
                    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) ? "?" : scalar
                }
            )
        )
    }

    private static func cell(_ position: ArenaPosition, columns: Int, rows: Int) -> (column: Int, row: Int)? {
        let column = Int(position.column)
        let row = Int(position.row)
        guard (0..<columns).contains(column), (0..<rows).contains(row) else { return nil }
        return (column, row)
    }

    private static func paint(_ glyph: String, code: String, colour: Bool) -> String {
        colour ? "\u{1B}[\(code)m\(glyph)\u{1B}[0m" : glyph
    }
}
