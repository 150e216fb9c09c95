import HuddleArenaCore
import Testing

/// Bots walk to the live coin, deterministically from their seed.
@Suite("Bots")
struct BotTests {
    let configuration = ArenaConfiguration()

    @Test func withoutJitterABotHeadsStraightForTheTarget() {
        var bot = ArenaBot(seed: 1, jitterOneIn: 0)
        let from = ArenaPosition(column: 10, row: 10)
        let diagonal = bot.direction(from: from, toward: ArenaPosition(column: 20, row: 2), in: self.configuration)
        #expect(diagonal == ArenaDirection(dx: 1, dy: -1))
        let down = bot.direction(from: from, toward: ArenaPosition(column: 10, row: 12), in: self.configuration)
        #expect(down == .down)
        // Within half a step on an axis it stops on that axis, so it does not oscillate.
        let close = bot.direction(
            from: from,
            toward: ArenaPosition(x: from.x + 40, y: from.y - 48),
            in: self.configuration
        )
        #expect(close == .none)
    }

    @Test func aBotReachesTheCoinWithinABoundedNumberOfTicks() {
        var match = ArenaMatch(peer: "solo", seed: 2_024)
        _ = match.addLocalPlayer(index: 0, name: "bot", at: ArenaPosition(column: 0, row: 0))
        var bot = ArenaBot(seed: 3)
        let id = ArenaPlayerID(owner: "solo", index: 0)
        var claimedAt: [UInt32] = []
        for _ in 0..<400 {
            let direction = bot.direction(for: match.localPlayers[0], in: match)
            for case .claim(let claim) in match.step(inputs: [id: direction]) { claimedAt.append(claim.tick) }
        }
        // The farthest coin is 47 columns away, 126 ticks at 3/8 cell a tick; jitter costs a little more.
        #expect(claimedAt.count >= 5)
        #expect(claimedAt.first.map { $0 <= 160 } == true)
        for (earlier, later) in zip([0] + claimedAt, claimedAt) { #expect(later - earlier <= 160) }
    }

    @Test func theSameSeedGivesTheSameDecisions() {
        var one = ArenaBot(seed: 77)
        var two = ArenaBot(seed: 77)
        var other = ArenaBot(seed: 78)
        let from = ArenaPosition(column: 5, row: 5)
        let to = ArenaPosition(column: 30, row: 9)
        let first = (0..<200).map { _ in one.direction(from: from, toward: to, in: self.configuration) }
        let second = (0..<200).map { _ in two.direction(from: from, toward: to, in: self.configuration) }
        let third = (0..<200).map { _ in other.direction(from: from, toward: to, in: self.configuration) }
        #expect(first == second)
        #expect(first != third)
        // Mostly straight for the coin, sometimes jittered (about one in six).
        let straight = first.filter { $0 == ArenaDirection(dx: 1, dy: 1) }.count
        #expect(straight > 140 && straight < 200)
        #expect(one.generator == two.generator)
    }
}
