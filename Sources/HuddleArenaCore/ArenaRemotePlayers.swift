/// Every remote player's ``ArenaSnapshotBuffer``, fed from state datagrams.
///
/// Bounded: at most ``maximumPlayers`` buffers (16 by default, four times a full game), so a peer sending
/// ever-new player identifiers cannot grow memory; players beyond that are not drawn.
public struct ArenaRemotePlayers: Hashable, Sendable {
    /// The most players tracked at once.
    public let maximumPlayers: Int
    /// Snapshots kept per player.
    public let capacity: Int
    /// One buffer per remote player.
    public private(set) var buffers: [ArenaPlayerID: ArenaSnapshotBuffer] = [:]

    public init(maximumPlayers: Int = 16, capacity: Int = 8) {
        self.maximumPlayers = Swift.max(0, maximumPlayers)
        self.capacity = capacity
    }

    /// Records a state datagram's players, received at `time` milliseconds; `tick` is the sequence.
    public mutating func received(tick: UInt32, players: [ArenaPlayerState], atMilliseconds time: Int64) {
        for player in players {
            if self.buffers[player.id] == nil {
                guard self.buffers.count < self.maximumPlayers else { continue }
                self.buffers[player.id] = ArenaSnapshotBuffer(capacity: self.capacity)
            }
            self.buffers[player.id]?.received(player.position, sequence: tick, atMilliseconds: time)
        }
    }

    /// Where to draw each remote player at `now` (with the interpolation delay applied).
    public func positions(now: Int64) -> [ArenaPlayerID: ArenaPosition] {
        self.buffers.compactMapValues { $0.position(now: now) }
    }

    /// Forgets every player of a peer that left.
    public mutating func remove(owner: String) {
        self.buffers = self.buffers.filter { !$0.key.owner.utf8.elementsEqual(owner.utf8) }
    }
}
