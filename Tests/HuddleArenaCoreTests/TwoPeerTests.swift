import HuddleArenaCore
import Testing

/// Peers exchanging real encoded messages, with state datagrams lost, end with the same digest bytes.
@Suite("Peers agree")
struct TwoPeerTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func twoPeersWithLostDatagramsAgree(seed: UInt64) throws {
        var peers = try SimulatedPeers(seed: seed, botsPerPeer: [2, 1])
        for _ in 0..<600 { try peers.tick() }
        #expect(peers.statesDropped > 60)
        #expect(peers.peers[0].statesReceived < 600)
        #expect(!peers.peers[0].match.hasAllFinals(expecting: ["peer0", "peer1"]))
        try peers.finish()

        let first = peers.peers[0].match
        let second = peers.peers[1].match
        #expect(first.hasAllFinals(expecting: first.joinedPeers))
        #expect(second.hasAllFinals(expecting: second.joinedPeers))
        #expect(first.joinedPeers == ["peer0", "peer1"])
        #expect(first.ledger.winners.count > 10)
        #expect(first.scores == second.scores)
        #expect(first.scores.values.reduce(0, +) == first.ledger.winners.count)
        #expect(first.canonicalBytes() == second.canonicalBytes())
        #expect(first.finals.values.map(\.count).reduce(0, +) == 3)
        // Some coins were claimed on both peers before either heard of the other's claim: the merge decided them.
        #expect(peers.claimsMade > first.ledger.winners.count)
    }

    @Test func fourPlayersOnThreePeersAgree() throws {
        var peers = try SimulatedPeers(seed: 99, botsPerPeer: [2, 1, 1], dropOneIn: 5)
        for _ in 0..<400 { try peers.tick() }
        try peers.finish()
        let digests = peers.peers.map { $0.match.canonicalBytes() }
        #expect(Set(digests).count == 1)
        #expect(peers.peers.allSatisfy { $0.match.hasAllFinals(expecting: ["peer0", "peer1", "peer2"]) })
        #expect(peers.peers[0].match.scores.count >= 2)
    }

    /// Until the claims arrive the ledgers differ, which is why the digest waits for every final.
    @Test func digestsDifferBeforeTheClaimsArrive() throws {
        var peers = try SimulatedPeers(seed: 5, botsPerPeer: [1, 1])
        var differed = false
        for _ in 0..<300 {
            try peers.tick()
            if peers.peers[0].match.ledger != peers.peers[1].match.ledger { differed = true }
        }
        #expect(differed)
        try peers.finish()
        #expect(peers.peers[0].match.ledger == peers.peers[1].match.ledger)
    }

    /// The same seed replays the same game.
    @Test func gamesAreDeterministic() throws {
        var one = try SimulatedPeers(seed: 11, botsPerPeer: [1, 1])
        var two = try SimulatedPeers(seed: 11, botsPerPeer: [1, 1])
        for _ in 0..<200 {
            try one.tick()
            try two.tick()
        }
        try one.finish()
        try two.finish()
        #expect(one.peers[0].match.canonicalBytes() == two.peers[0].match.canonicalBytes())
        #expect(one.peers[1].remote == two.peers[1].remote)
    }
}
