import Crypto
import HuddleArenaCore

/// The last line of `huddle-arena --json`: how many other peers played, the digest of the game state every peer
/// must agree on (SHA-256 of ``ArenaMatch/canonicalBytes()``), and the state updates received a second from each.
struct ArenaResult: Encodable, Sendable {
    var event = "result"
    /// Other peers whose players joined.
    var peers: Int
    var stateDigest: String
    /// State datagrams received a second, per other peer, over the game's time.
    var updatesPerSecond: Double
    /// Whether every peer's final came: only then must the digests agree.
    var complete: Bool
    var ticks: UInt32
    var coinsWon: Int
    var malformed: Int

    init(match: ArenaMatch, stateUpdates: Int, seconds: Double, complete: Bool, malformed: Int) {
        peers = match.joinedPeers.count - 1
        stateDigest = SHA256.hash(data: match.canonicalBytes()).map { Self.hex($0) }.joined()
        let perPeer = Double(stateUpdates) / max(seconds, 0.001) / Double(max(peers, 1))
        updatesPerSecond = (perPeer * 10).rounded() / 10
        (self.complete, ticks, coinsWon, self.malformed) = (complete, match.tick, match.ledger.winners.count, malformed)
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    /// The seed every peer of a session derives from its session ID: FNV-1a, 64 bits.
    static func seed(of sessionID: String) -> UInt64 {
        sessionID.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }
}
