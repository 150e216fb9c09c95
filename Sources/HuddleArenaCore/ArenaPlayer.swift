/// One player as its owner simulates it: who, what it is called, where it is.
public struct ArenaPlayer: Hashable, Sendable {
    public var id: ArenaPlayerID
    /// The name shown on screen (at most ``ArenaCodecLimits/maximumNameBytes`` bytes of UTF-8 to travel).
    public var name: String
    public var position: ArenaPosition

    public init(id: ArenaPlayerID, name: String, position: ArenaPosition) {
        self.id = id
        self.name = name
        self.position = position
    }
}

/// A player's position as sent each tick in a state datagram: enough to draw it, nothing the digest relies on.
public struct ArenaPlayerState: Hashable, Sendable {
    public var id: ArenaPlayerID
    public var position: ArenaPosition

    public init(id: ArenaPlayerID, position: ArenaPosition) {
        self.id = id
        self.position = position
    }
}

/// A player's end of game as its owner reports it in a reliable final message.
public struct ArenaFinalPlayer: Hashable, Sendable {
    public var id: ArenaPlayerID
    public var name: String
    /// Where the player stopped; this goes into the digest.
    public var position: ArenaPosition
    /// The score the owner believed when it finished. Informational: the digest uses the merged claims instead,
    /// because claims from other peers may still have been on their way.
    public var reportedScore: UInt32

    public init(id: ArenaPlayerID, name: String, position: ArenaPosition, reportedScore: UInt32) {
        self.id = id
        self.name = name
        self.position = position
        self.reportedScore = reportedScore
    }
}
