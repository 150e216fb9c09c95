import Huddle
import HuddleArenaCore

/// One peer's game while it runs: the match (the pure rules of `HuddleArenaCore`), its bots, the other peers'
/// players as they move on screen, and what was counted. The tick loop and the session's events both go through
/// this actor, so the match changes one step at a time.
actor ArenaTable {
    private(set) var match: ArenaMatch
    private var bots: [ArenaPlayerID: ArenaBot] = [:]
    private var remote = ArenaRemotePlayers()
    /// The human's player, and the way they steer now.
    private let human: ArenaPlayerID?
    private var steering = ArenaDirection.none
    /// The other peers connected now, and every one that ever was.
    private(set) var connected: Set<PeerID> = []
    private(set) var everConnected: Set<PeerID> = []
    /// State datagrams received from other peers, and messages that did not decode or spoke for another peer.
    private(set) var stateUpdates = 0
    private(set) var malformed = 0
    private let clock = ContinuousClock()
    private let opened: ContinuousClock.Instant

    /// A table for this peer (`owner`, its session's peer ID: unique even where host names are not), with a human
    /// player named `name` or not, and `bots` computer players.
    init(owner: String, name: String, seed: UInt64, bots: Int, human: Bool, configuration: ArenaConfiguration) {
        var match = ArenaMatch(peer: owner, seed: seed, configuration: configuration)
        var index: UInt8 = 0
        if human {
            _ = match.addLocalPlayer(index: index, name: Self.fitted(name))
            index += 1
        }
        for bot in 0..<bots {
            let id = ArenaPlayerID(owner: owner, index: index)
            _ = match.addLocalPlayer(index: index, name: Self.fitted("\(name)-bot\(bot + 1)"))
            self.bots[id] = ArenaBot(seed: seed ^ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
            index += 1
        }
        self.match = match
        self.human = human ? ArenaPlayerID(owner: owner, index: 0) : nil
        opened = clock.now
    }

    /// A name cut to the 32 bytes of UTF-8 the messages allow, on a character boundary.
    static func fitted(_ name: String) -> String {
        var fitted = ""
        for character in name where fitted.utf8.count + character.utf8.count <= ArenaCodecLimits().maximumNameBytes {
            fitted.append(character)
        }
        return fitted.isEmpty ? "player" : fitted
    }

    /// Milliseconds since the table opened: the clock of the interpolation.
    var milliseconds: Int64 {
        let elapsed = opened.duration(to: clock.now).components
        return elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000
    }

    func steer(_ direction: ArenaDirection) { steering = direction }

    /// Whether the game has started: from then on the terminal belongs to the game, not to questions.
    private(set) var playing = false
    func startPlaying() { playing = true }

    /// The human pressed q: the game ends at the next tick.
    private(set) var quitting = false
    func quit() { quitting = true }

    /// One tick: the bots choose, the players move; the claims to send reliably and the state datagram.
    func tick() -> (claims: [[UInt8]], state: [UInt8]?) {
        var inputs: [ArenaPlayerID: ArenaDirection] = [:]
        for player in match.localPlayers {
            if player.id == human {
                inputs[player.id] = steering
            } else if var bot = bots[player.id] {
                inputs[player.id] = bot.direction(for: player, in: match)
                bots[player.id] = bot
            }
        }
        let claims = match.step(inputs: inputs).compactMap { try? $0.encoded() }
        return (claims, try? match.stateMessage().encoded())
    }

    /// `peer` connected: what it must hear from this side to agree on the game — every player's join and every
    /// claim this side made, again if it heard them before (the merge keeps one of each).
    func connected(_ peer: PeerID) -> [[UInt8]] {
        connected.insert(peer)
        everConnected.insert(peer)
        var facts = match.localPlayers.map { ArenaMessage.join(player: $0.id, name: $0.name) }
        facts += match.ledger.sortedWinners.filter { $0.player.owner == match.peer }.map { .claim($0) }
        if match.isFinished { facts.append(match.finish()) }
        return facts.compactMap { try? $0.encoded() }
    }

    func disconnected(_ peer: PeerID) {
        connected.remove(peer)
        remote.remove(owner: peer.rawValue)
    }

    /// A game message from `peer`, merged; one that does not decode, or speaks for another peer's players
    /// (``ArenaMatch/receive(_:from:)``), is counted and dropped.
    func received(_ bytes: [UInt8], from peer: PeerID) {
        guard let message = try? ArenaMessage(decoding: bytes), message.speaks(for: peer.rawValue) else {
            malformed += 1
            return
        }
        if case .interpolate(let tick, let players) = match.receive(message, from: peer.rawValue) {
            stateUpdates += 1
            remote.received(tick: tick, players: players, atMilliseconds: milliseconds)
        }
    }

    /// Stops this peer's players; the final to send reliably.
    func finish() -> [UInt8]? { try? match.finish().encoded() }

    /// Whether the final of every peer that joined has come.
    var hasAllFinals: Bool { match.hasAllFinals(expecting: match.joinedPeers) }

    /// The screen now: every player where it is (the others as interpolated), the live coin, the scores.
    func frame(colour: Bool) -> [String] {
        let scores = match.scores
        var sprites = match.localPlayers.map {
            ArenaScreen.Sprite(id: $0.id, name: $0.name, position: $0.position, score: scores[$0.id] ?? 0)
        }
        for (id, position) in remote.positions(now: milliseconds) {
            sprites.append(.init(id: id, name: match.names[id] ?? id.owner, position: position, score: scores[id] ?? 0))
        }
        let coin = match.isFinished ? nil : match.liveCoinPosition
        return ArenaScreen.frame(configuration: match.configuration, coin: coin, players: sprites, colour: colour)
    }
}
