import HuddleArenaCore
import Testing

/// The arena as text.
@Suite("Screen")
struct ScreenTests {
    let configuration = ArenaConfiguration(columns: 6, rows: 3)

    var sprites: [ArenaScreen.Sprite] {
        [
            ArenaScreen.Sprite(
                id: ArenaPlayerID(owner: "bob", index: 0),
                name: "Bob",
                position: ArenaPosition(column: 5, row: 2),
                score: 1
            ),
            ArenaScreen.Sprite(
                id: ArenaPlayerID(owner: "alice", index: 0),
                name: "Alice",
                position: ArenaPosition(column: 0, row: 0),
                score: 3
            ),
        ]
    }

    @Test func plainFrame() {
        let lines = ArenaScreen.frame(
            configuration: self.configuration,
            coin: ArenaPosition(column: 2, row: 1),
            players: self.sprites
        )
        #expect(
            lines == [
                "+------+",
                "|A     |",
                "|  $   |",
                "|     B|",
                "+------+",
                "A Alice 3  B Bob 1",
            ]
        )
    }

    @Test func aPlayerCoversTheCoinAndOffArenaPositionsAreNotDrawn() {
        var sprites = self.sprites
        sprites[0].position = ArenaPosition(column: 2, row: 1)
        sprites[1].position = ArenaPosition(x: -300, y: 0)
        let lines = ArenaScreen.frame(
            configuration: self.configuration,
            coin: ArenaPosition(column: 2, row: 1),
            players: sprites
        )
        #expect(lines[1] == "|      |")
        #expect(lines[2] == "|  B   |")
    }

    @Test func colourWrapsGlyphsInSGRCodes() {
        let lines = ArenaScreen.frame(
            configuration: self.configuration,
            coin: ArenaPosition(column: 2, row: 1),
            players: self.sprites,
            colour: true
        )
        #expect(lines[1] == "|\u{1B}[1;31mA\u{1B}[0m     |")
        #expect(lines[2] == "|  \u{1B}[1;33m$\u{1B}[0m   |")
        #expect(lines[3] == "|     \u{1B}[1;32mB\u{1B}[0m|")
    }

    @Test func namesCannotCarryTerminalEscapes() {
        var sprites = self.sprites
        sprites[0].name = "B\u{1B}[2Jb\u{9B}\n"
        let lines = ArenaScreen.frame(configuration: self.configuration, coin: nil, players: sprites)
        #expect(lines.last == "A Alice 3  B B?[2Jb?? 1")
        #expect(ArenaScreen.printable("Zoë") == "Zoë")
    }

    @Test func glyphsFollowPlayerOrder() {
        let ids = (0..<28).map { ArenaPlayerID(owner: "p", index: UInt8(27 - $0)) }
        let glyphs = ArenaScreen.glyphs(for: ids)
        #expect(glyphs[ArenaPlayerID(owner: "p", index: 0)] == "A")
        #expect(glyphs[ArenaPlayerID(owner: "p", index: 25)] == "Z")
        #expect(glyphs[ArenaPlayerID(owner: "p", index: 27)] == "?")
    }
}
