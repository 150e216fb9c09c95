import HuddleArenaCore
import Testing

/// One peer's match: steps, claims, the live coin, finals and the digest bytes.
@Suite("Match")
struct MatchTests {
    let seed: UInt64 = 7

    /// A match whose only player stands right next to coin 0.
    func matchBesideCoin() -> ArenaMatch {
        var match = ArenaMatch(peer: "alice", seed: self.seed)
        let coin = match.liveCoinPosition
        _ = match.addLocalPlayer(index: 0, name: "Alice", at: ArenaPosition(x: coin.x - 250, y: coin.y))
        return match
    }

    @Test func addingAPlayerReturnsItsJoinOnce() throws {
        var match = ArenaMatch(peer: "alice", seed: self.seed)
        let id = ArenaPlayerID(owner: "alice", index: 0)
        #expect(match.addLocalPlayer(index: 0, name: "Alice") == .join(player: id, name: "Alice"))
        #expect(match.addLocalPlayer(index: 0, name: "again") == nil)
        #expect(match.localPlayers.map(\.id) == [id])
        #expect(
            match.localPlayers[0].position == ArenaMatch.spawnPosition(of: id, seed: self.seed, in: match.configuration)
        )
        #expect(match.joinedPeers == ["alice"])
        let more = (1...4).map { match.addLocalPlayer(index: UInt8($0), name: "bot") != nil }
        #expect(more == [true, true, true, false])
        let state = try match.stateMessage().encoded()
        #expect(state.count == 2 + 4 + 1 + 4 * 15)
    }

    @Test func touchingTheLiveCoinClaimsItAndMovesOn() {
        var match = self.matchBesideCoin()
        let id = ArenaPlayerID(owner: "alice", index: 0)
        #expect(match.step(inputs: [:]).isEmpty)
        #expect(match.tick == 1)
        let claims = match.step(inputs: [id: .right])
        #expect(claims == [.claim(ArenaClaim(coin: 0, player: id, tick: 2))])
        #expect(match.liveCoin == 1)
        #expect(match.scores == [id: 1])
        #expect(match.liveCoinPosition == ArenaCoins.position(ofCoin: 1, seed: self.seed, in: match.configuration))
    }

    @Test func aRemoteClaimAtOrPastTheLiveCoinAdvancesIt() {
        var match = ArenaMatch(peer: "alice", seed: self.seed)
        let bob = ArenaPlayerID(owner: "bob", index: 0)
        #expect(match.receive(.claim(ArenaClaim(coin: 3, player: bob, tick: 10))) == .recorded)
        #expect(match.liveCoin == 4)
        #expect(match.receive(.claim(ArenaClaim(coin: 1, player: bob, tick: 5))) == .recorded)
        #expect(match.liveCoin == 4)
        #expect(match.scores == [bob: 2])
        // Echoes of this peer's own players are not merged twice.
        let own = ArenaClaim(coin: 9, player: ArenaPlayerID(owner: "alice", index: 0), tick: 1)
        #expect(match.receive(.claim(own)) == .ignored)
        #expect(match.liveCoin == 4)
    }

    @Test func stateIsHandedOnForInterpolationOnly() {
        var match = ArenaMatch(peer: "alice", seed: self.seed)
        let bob = ArenaPlayerState(id: ArenaPlayerID(owner: "bob", index: 0), position: ArenaPosition(x: 1, y: 2))
        #expect(match.receive(.state(tick: 4, players: [bob])) == .interpolate(tick: 4, players: [bob]))
        #expect(match.canonicalBytes() == ArenaMatch(peer: "alice", seed: self.seed).canonicalBytes())
    }

    @Test func aPeerCannotClaimSendAFinalOrMovePlayersInAnotherPeersName() {
        var match = ArenaMatch(peer: "alice", seed: self.seed)
        let bobsPlayer = ArenaPlayerID(owner: "bob", index: 0)
        let forged: [ArenaMessage] = [
            .claim(ArenaClaim(coin: 0, player: bobsPlayer, tick: 1)),
            .join(player: bobsPlayer, name: "Bob"),
            .final(peer: "bob", players: []),
            .state(tick: 3, players: [ArenaPlayerState(id: bobsPlayer, position: ArenaPosition(x: 9, y: 9))]),
        ]
        for message in forged {
            #expect(!message.speaks(for: "mallory"))
            #expect(match.receive(message, from: "mallory") == .ignored)
        }
        // Nothing of Bob's changed: no winner, no name, no final, and the digest is a fresh match's.
        #expect(match.ledger.winners.isEmpty && match.names.isEmpty && match.finals.isEmpty)
        #expect(match.canonicalBytes() == ArenaMatch(peer: "alice", seed: self.seed).canonicalBytes())
        // From Bob himself, the same claim counts.
        #expect(match.receive(forged[0], from: "bob") == .recorded)
        #expect(match.ledger.winners[0]?.player == bobsPlayer)
        // A final naming Bob but carrying another peer's player is refused whole.
        let mixed = ArenaMessage.final(
            peer: "bob",
            players: [
                ArenaFinalPlayer(
                    id: ArenaPlayerID(owner: "cy", index: 0),
                    name: "Cy",
                    position: .init(x: 1, y: 1),
                    reportedScore: 0
                )
            ]
        )
        #expect(match.receive(mixed, from: "bob") == .ignored && match.finals["bob"] == nil)
    }

    @Test func finalsDecideWhenTheDigestIsReady() {
        var match = self.matchBesideCoin()
        let id = ArenaPlayerID(owner: "alice", index: 0)
        _ = match.step(inputs: [id: .right])
        #expect(match.receive(.join(player: ArenaPlayerID(owner: "bob", index: 0), name: "Bob")) == .recorded)
        #expect(match.joinedPeers == ["alice", "bob"])
        #expect(!match.hasAllFinals(expecting: match.joinedPeers))
        let final = match.finish()
        let position = match.localPlayers[0].position
        #expect(
            final
                == .final(
                    peer: "alice",
                    players: [ArenaFinalPlayer(id: id, name: "Alice", position: position, reportedScore: 1)]
                )
        )
        #expect(match.step(inputs: [id: .left]).isEmpty)
        #expect(match.localPlayers[0].position == position)
        #expect(!match.hasAllFinals(expecting: ["alice", "bob"]))
        let bobFinal = ArenaFinalPlayer(
            id: ArenaPlayerID(owner: "bob", index: 0),
            name: "Bob",
            position: .init(x: 5, y: 6),
            reportedScore: 0
        )
        let forged = ArenaFinalPlayer(
            id: ArenaPlayerID(owner: "alice", index: 7),
            name: "x",
            position: .init(x: 0, y: 0),
            reportedScore: 9
        )
        #expect(match.receive(.final(peer: "bob", players: [bobFinal, forged])) == .recorded)
        #expect(match.receive(.final(peer: "bob", players: [])) == .ignored)
        #expect(match.finals["bob"] == [bobFinal])
        #expect(match.hasAllFinals(expecting: ["alice", "bob"]))
        #expect(match.finish() == final)
    }

    /// The digest layout byte for byte: alice#0 won coin 0 at tick 2 and stopped at (384, 640); bob#0 at (5, 6).
    @Test func canonicalBytesFollowTheDocumentedLayout() {
        var ledger = ArenaClaimLedger()
        let alice = ArenaPlayerID(owner: "alice", index: 0)
        let bob = ArenaPlayerID(owner: "b", index: 0)
        ledger.record(ArenaClaim(coin: 0, player: alice, tick: 2))
        let finals: [String: [ArenaFinalPlayer]] = [
            "b": [ArenaFinalPlayer(id: bob, name: "Bob", position: .init(x: 5, y: 6), reportedScore: 4)],
            "alice": [ArenaFinalPlayer(id: alice, name: "A", position: .init(x: 384, y: -1), reportedScore: 1)],
        ]
        let aliceID: [UInt8] = [0, 0, 0, 5] + Array("alice".utf8) + [0]
        let bobID: [UInt8] = [0, 0, 0, 1, 0x62, 0]
        var expected: [UInt8] = [0x48, 0x41, 0x44, 0x47, 1, 0, 0, 0, 0, 0, 0, 0, 9]
        expected += [0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + aliceID
        expected += [0, 0, 0, 2] + aliceID + [0, 0, 0, 1] + bobID + [0, 0, 0, 0]
        expected +=
            [0, 0, 0, 2] + aliceID + [0, 0, 1, 0x80, 0xFF, 0xFF, 0xFF, 0xFF] + bobID + [0, 0, 0, 5, 0, 0, 0, 6]
        #expect(ArenaDigest.canonicalBytes(seed: 9, ledger: ledger, finals: finals) == expected)
    }
}
