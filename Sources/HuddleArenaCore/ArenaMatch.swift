/// One peer's view of the game: its own players, which coin is live, every claim it has seen and the finals.
///
/// The peer is authoritative for its own players only. Each tick the executable calls ``step(inputs:)`` and sends
/// the returned claims reliably, sends ``stateMessage()`` as a datagram, and feeds everything it receives to
/// ``receive(_:)``. At the end it sends ``finish()``'s final, waits until ``hasAllFinals(expecting:)``, and hashes
/// ``canonicalBytes()``.
///
/// The machine never reads a clock or a random generator: time is the tick count.
public struct ArenaMatch: Sendable {
    /// The rules every peer shares.
    public let configuration: ArenaConfiguration
    /// The session's seed; coin positions are a pure function of it (``ArenaCoins``).
    public let seed: UInt64
    /// This peer's name: the ``ArenaPlayerID/owner`` of its players.
    public let peer: String
    /// Ticks simulated so far; the claims of a step carry the tick it produced.
    public internal(set) var tick: UInt32 = 0
    /// This peer's own players, in the order they were added.
    public internal(set) var localPlayers: [ArenaPlayer] = []
    /// The coin this peer's players can pick up now: one past the highest coin claimed by anyone it heard of.
    public internal(set) var liveCoin: UInt32 = 0
    /// Every claim seen, merged to one winner per coin.
    public internal(set) var ledger = ArenaClaimLedger()
    /// Display names of every player that joined, this peer's own included.
    public internal(set) var names: [ArenaPlayerID: String] = [:]
    /// Each finished peer's players as they ended, by peer name (this peer's own after ``finish()``).
    public internal(set) var finals: [String: [ArenaFinalPlayer]] = [:]
    /// Whether ``finish()`` was called: no more movement or claims.
    public internal(set) var isFinished = false

    public init(peer: String, seed: UInt64, configuration: ArenaConfiguration = ArenaConfiguration()) {
        self.peer = peer
        self.seed = seed
        self.configuration = configuration
    }

    /// Where ``liveCoin`` lies.
    public var liveCoinPosition: ArenaPosition {
        ArenaCoins.position(ofCoin: self.liveCoin, seed: self.seed, in: self.configuration)
    }

    /// The merged score of every player that won at least one coin.
    public var scores: [ArenaPlayerID: Int] { self.ledger.scores }

    /// A peer has at most 4 players, so its state always fits one message (``ArenaCodecLimits``).
    public static let maximumLocalPlayers = 4

    /// Adds a player of this peer, at `position` (clamped) or at its spawn point.
    ///
    /// - Returns: The join message to send reliably, or `nil` when a player with that index already exists or the
    ///   peer already has ``maximumLocalPlayers``.
    public mutating func addLocalPlayer(
        index: UInt8,
        name: String,
        at position: ArenaPosition? = nil
    )
        -> ArenaMessage?
    {
        let id = ArenaPlayerID(owner: self.peer, index: index)
        guard !self.localPlayers.contains(where: { $0.id == id }) else { return nil }
        guard self.localPlayers.count < Self.maximumLocalPlayers else { return nil }
        let start = position ?? Self.spawnPosition(of: id, seed: self.seed, in: self.configuration)
        self.localPlayers.append(ArenaPlayer(id: id, name: name, position: self.configuration.clamped(start)))
        self.names[id] = name
        return .join(player: id, name: name)
    }

    /// Where a player starts unless told otherwise: a pure function of the seed and the player's identifier.
    public static func spawnPosition(
        of id: ArenaPlayerID,
        seed: UInt64,
        in configuration: ArenaConfiguration
    )
        -> ArenaPosition
    {
        var bits = seed ^ 0x5350_4157_4E00_0000 ^ UInt64(id.index)
        for byte in id.owner.utf8 { bits = SplitMix64.mix(bits ^ UInt64(byte)) }
        let column = SplitMix64.reduce(SplitMix64.mix(bits), below: UInt64(configuration.columns))
        let row = SplitMix64.reduce(SplitMix64.mix(bits ^ 1), below: UInt64(configuration.rows))
        return ArenaPosition(column: Int32(truncatingIfNeeded: column), row: Int32(truncatingIfNeeded: row))
    }

    /// Advances one fixed tick.
    ///
    /// Each local player, in the order they were added, moves by its input (no input: stays), clamped to the walls;
    /// then, if it touches the live coin, this peer claims that coin for it at the new tick and the next coin becomes
    /// live (so later players of the same tick test against the next coin). After ``finish()`` nothing moves.
    ///
    /// - Returns: The claims to send reliably, already recorded in ``ledger``.
    public mutating func step(inputs: [ArenaPlayerID: ArenaDirection]) -> [ArenaMessage] {
        guard !self.isFinished else { return [] }
        self.tick &+= 1
        var claims: [ArenaMessage] = []
        for index in self.localPlayers.indices {
            let player = self.localPlayers[index]
            let moved = ArenaPhysics.move(player.position, inputs[player.id] ?? .none, in: self.configuration)
            self.localPlayers[index].position = moved
            if ArenaPhysics.touches(moved, coin: self.liveCoinPosition, in: self.configuration) {
                let claim = ArenaClaim(coin: self.liveCoin, player: player.id, tick: self.tick)
                self.ledger.record(claim)
                self.liveCoin &+= 1
                claims.append(.claim(claim))
            }
        }
        return claims
    }

    /// The datagram describing this peer's players now.
    public func stateMessage() -> ArenaMessage {
        .state(tick: self.tick, players: self.localPlayers.map { ArenaPlayerState(id: $0.id, position: $0.position) })
    }
}
