/// "My player touched coin `coin` at my tick `tick`": the only gameplay fact that travels reliably.
///
/// Claims are ordered by ``precedes(_:)``: the smaller `(tick, player)` wins a coin. Ticks count from each peer's own
/// start, so the order is a total order every peer agrees on, not a statement about wall-clock time.
public struct ArenaClaim: Hashable, Sendable, CustomStringConvertible {
    /// The coin's number (0, 1, 2, …).
    public var coin: UInt32
    /// The claiming player.
    public var player: ArenaPlayerID
    /// The owner's tick at which the player touched the coin.
    public var tick: UInt32

    public init(coin: UInt32, player: ArenaPlayerID, tick: UInt32) {
        self.coin = coin
        self.player = player
        self.tick = tick
    }

    public var description: String { "claim(coin \(self.coin), \(self.player), tick \(self.tick))" }

    /// Whether this claim beats `other` for the same coin: the smaller tick, then the smaller ``ArenaPlayerID``.
    public func precedes(_ other: Self) -> Bool {
        if self.tick != other.tick { return self.tick < other.tick }
        return self.player < other.player
    }
}

/// Every claim a peer has seen, merged to one winner per coin.
///
/// The merge keeps, for each coin, the claim that ``ArenaClaim/precedes(_:)`` every other claim for it. Taking a
/// minimum is commutative, associative and idempotent, so any arrival order (and any duplicates) gives the same
/// winners, and once every claim has reached every peer their ledgers are equal.
public struct ArenaClaimLedger: Hashable, Sendable {
    /// The winning claim of each coin claimed so far.
    public private(set) var winners: [UInt32: ArenaClaim] = [:]

    public init() {}

    /// Merges one claim.
    ///
    /// - Returns: Whether it is now the coin's winner (a new coin, or a better claim than the previous winner).
    @discardableResult
    public mutating func record(_ claim: ArenaClaim) -> Bool {
        if let current = self.winners[claim.coin], !claim.precedes(current) { return false }
        self.winners[claim.coin] = claim
        return true
    }

    /// The winners in coin order.
    public var sortedWinners: [ArenaClaim] {
        self.winners.values.sorted { $0.coin < $1.coin }
    }

    /// Coins won by each player that won at least one.
    public var scores: [ArenaPlayerID: Int] {
        var scores: [ArenaPlayerID: Int] = [:]
        for claim in self.winners.values { scores[claim.player, default: 0] += 1 }
        return scores
    }

    /// Coins won by one player (0 when none).
    public func score(of player: ArenaPlayerID) -> Int {
        self.winners.values.reduce(0) { $0 + ($1.player == player ? 1 : 0) }
    }
}
