import HuddleArenaCore
import Testing

/// The winner of a coin is the claim with the smallest (tick, player), whatever order claims arrive in.
@Suite("Claim merge")
struct ClaimMergeTests {
    let alice = ArenaPlayerID(owner: "alice", index: 0)
    let bob = ArenaPlayerID(owner: "bob", index: 0)
    let bobBot = ArenaPlayerID(owner: "bob", index: 1)

    var claims: [ArenaClaim] {
        [
            ArenaClaim(coin: 0, player: self.bob, tick: 30),
            ArenaClaim(coin: 0, player: self.alice, tick: 31),
            ArenaClaim(coin: 1, player: self.bobBot, tick: 50),
            ArenaClaim(coin: 1, player: self.alice, tick: 50),
            ArenaClaim(coin: 2, player: self.alice, tick: 70),
            ArenaClaim(coin: 3, player: self.bob, tick: 90),
        ]
    }

    @Test func everyOrderGivesTheSameWinners() {
        var reference = ArenaClaimLedger()
        for claim in self.claims { reference.record(claim) }
        #expect(
            reference.sortedWinners == [
                ArenaClaim(coin: 0, player: self.bob, tick: 30),
                ArenaClaim(coin: 1, player: self.alice, tick: 50),
                ArenaClaim(coin: 2, player: self.alice, tick: 70),
                ArenaClaim(coin: 3, player: self.bob, tick: 90),
            ]
        )
        var orders = 0
        for permutation in Self.permutations(self.claims) {
            var ledger = ArenaClaimLedger()
            for claim in permutation { ledger.record(claim) }
            #expect(ledger == reference)
            orders += 1
        }
        #expect(orders == 720)
    }

    @Test func duplicatesChangeNothing() {
        var once = ArenaClaimLedger()
        var twice = ArenaClaimLedger()
        for claim in self.claims { once.record(claim) }
        for claim in self.claims + self.claims.reversed() { twice.record(claim) }
        #expect(once == twice)
    }

    @Test func equalTicksAreBrokenByPlayerOrder() {
        let claim = ArenaClaim(coin: 5, player: self.alice, tick: 9)
        #expect(claim.precedes(ArenaClaim(coin: 5, player: self.bob, tick: 9)))
        #expect(!ArenaClaim(coin: 5, player: self.bob, tick: 9).precedes(claim))
        #expect(ArenaClaim(coin: 5, player: self.bob, tick: 8).precedes(claim))
        var ledger = ArenaClaimLedger()
        let first = ledger.record(ArenaClaim(coin: 5, player: self.bobBot, tick: 9))
        let later = ledger.record(ArenaClaim(coin: 5, player: self.bobBot, tick: 10))
        let better = ledger.record(claim)
        #expect(first && !later && better)
        #expect(ledger.winners[5] == claim)
    }

    @Test func scoresCountWonCoins() {
        var ledger = ArenaClaimLedger()
        for claim in self.claims { ledger.record(claim) }
        #expect(ledger.scores == [self.alice: 2, self.bob: 2])
        #expect(ledger.score(of: self.bobBot) == 0)
    }

    @Test func playerOrderIsByOwnerBytesThenIndex() {
        let ids = [
            ArenaPlayerID(owner: "b", index: 0),
            ArenaPlayerID(owner: "ab", index: 0),
            ArenaPlayerID(owner: "a", index: 3),
            ArenaPlayerID(owner: "a", index: 1),
            ArenaPlayerID(owner: "Z", index: 9),
        ]
        #expect(ids.sorted().map(\.description) == ["Z#9", "a#1", "a#3", "ab#0", "b#0"])
        // Canonically equivalent spellings are different owners: identity is by bytes.
        #expect(ArenaPlayerID(owner: "\u{E9}", index: 0) != ArenaPlayerID(owner: "e\u{301}", index: 0))
    }

    private static func permutations<Element>(_ elements: [Element]) -> [[Element]] {
        guard let first = elements.first else { return [[]] }
        var result: [[Element]] = []
        for rest in Self.permutations(Array(elements.dropFirst())) {
            for index in 0...rest.count {
                var permutation = rest
                permutation.insert(first, at: index)
                result.append(permutation)
            }
        }
        return result
    }
}
