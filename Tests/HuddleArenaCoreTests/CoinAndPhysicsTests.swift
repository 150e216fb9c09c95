import HuddleArenaCore
import Testing

/// Coin positions from the seed, movement, walls and touching.
@Suite("Coins and physics")
struct CoinAndPhysicsTests {
    let configuration = ArenaConfiguration()

    @Test func coinPositionIsAPureFunctionOfSeedAndNumber() {
        for coin in UInt32(0)..<50 {
            let first = ArenaCoins.position(ofCoin: coin, seed: 0xDEAD_BEEF, in: self.configuration)
            let second = ArenaCoins.position(ofCoin: coin, seed: 0xDEAD_BEEF, in: self.configuration)
            #expect(first == second)
        }
        let one = (UInt32(0)..<20).map { ArenaCoins.position(ofCoin: $0, seed: 1, in: self.configuration) }
        let two = (UInt32(0)..<20).map { ArenaCoins.position(ofCoin: $0, seed: 2, in: self.configuration) }
        #expect(one != two)
        #expect(Set(one).count > 10)
    }

    /// Pinned values, so a change to the rule (which would split peers running different builds) is noticed.
    @Test func coinPositionsArePinned() {
        let positions = (UInt32(0)..<3).map { ArenaCoins.position(ofCoin: $0, seed: 7, in: self.configuration) }
        #expect(positions.map(\.x).allSatisfy { ($0 - 128) % 256 == 0 })
        #expect(positions == Self.pinnedSeed7)
    }

    static let pinnedSeed7 = [
        ArenaPosition(column: 3, row: 11), ArenaPosition(column: 41, row: 13), ArenaPosition(column: 45, row: 10),
    ]

    @Test func coinsStayInsideTheArena() {
        let small = ArenaConfiguration(columns: 5, rows: 3)
        for seed: UInt64 in [0, 1, .max, 0x1234_5678_9ABC_DEF0] {
            for coin in UInt32(0)..<500 {
                for configuration in [self.configuration, small] {
                    let position = ArenaCoins.position(ofCoin: coin, seed: seed, in: configuration)
                    #expect(configuration.clamped(position) == position)
                    #expect((0..<configuration.columns).contains(position.column))
                    #expect((0..<configuration.rows).contains(position.row))
                }
            }
        }
    }

    @Test func movementIsSpeedPerAxis() {
        let start = ArenaPosition(column: 10, row: 5)
        let moved = ArenaPhysics.move(start, ArenaDirection(dx: 1, dy: -1), in: self.configuration)
        #expect(moved == ArenaPosition(x: start.x + 96, y: start.y - 96))
        #expect(ArenaPhysics.move(start, .none, in: self.configuration) == start)
        // Out-of-range inputs are clamped to one step.
        #expect(ArenaDirection(dx: 100, dy: -100) == ArenaDirection(dx: 1, dy: -1))
    }

    @Test func wallsClamp() {
        let corner = ArenaPosition(column: 0, row: 0)
        #expect(ArenaPhysics.move(corner, ArenaDirection(dx: -1, dy: -1), in: self.configuration) == corner)
        let far = ArenaPosition(column: 47, row: 15)
        #expect(ArenaPhysics.move(far, ArenaDirection(dx: 1, dy: 1), in: self.configuration) == far)
        // Sliding along the top wall keeps the other axis moving.
        let top = ArenaPhysics.move(
            ArenaPosition(x: 1_000, y: 130),
            ArenaDirection(dx: 1, dy: -1),
            in: self.configuration
        )
        #expect(top == ArenaPosition(x: 1_096, y: 128))
        #expect(self.configuration.clamped(ArenaPosition(x: -50_000, y: 90_000)) == ArenaPosition(x: 128, y: 3_968))
        #expect(self.configuration.maximumX == 12_160)
    }

    @Test func touchingIsWithinThePickupRadiusOnBothAxes() {
        let coin = ArenaPosition(column: 3, row: 3)
        #expect(
            ArenaPhysics.touches(ArenaPosition(x: coin.x + 192, y: coin.y - 192), coin: coin, in: self.configuration)
        )
        #expect(!ArenaPhysics.touches(ArenaPosition(x: coin.x + 193, y: coin.y), coin: coin, in: self.configuration))
        #expect(!ArenaPhysics.touches(ArenaPosition(x: coin.x, y: coin.y - 193), coin: coin, in: self.configuration))
    }

    @Test func splitMixMatchesTheReferenceSequence() {
        // First outputs of SplitMix64 seeded with 0 (the reference implementation by Vigna).
        var generator = SplitMix64(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(SplitMix64.reduce(.max, below: 10) == 9)
        #expect(SplitMix64.reduce(0, below: 10) == 0)
    }
}
