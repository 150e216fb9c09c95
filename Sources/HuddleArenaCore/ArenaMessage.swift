/// The four messages peers exchange, and how each must travel.
///
/// ``state(tick:players:)`` is a datagram sent every tick and may be lost; everything the digest relies on
/// (``claim(_:)``, ``join(player:name:)``, ``final(peer:players:)``) goes reliably and in order, on one channel, so a
/// peer that holds another's final also holds every claim that peer made before it.
/// The byte layouts are in `ArenaMessage+Encoding.swift`.
public enum ArenaMessage: Hashable, Sendable {
    /// The sender's own players at its tick `tick`; newer ticks replace older ones.
    case state(tick: UInt32, players: [ArenaPlayerState])
    /// A player of the sender touched a coin.
    case claim(ArenaClaim)
    /// A player of the sender entered the game, with the name to show.
    case join(player: ArenaPlayerID, name: String)
    /// The sender `peer` finished: its players as they ended. It sends no claims after this.
    ///
    /// The peer's name travels in the message (and not only the players' owners) so that a peer without players
    /// still reports that it finished.
    case final(peer: String, players: [ArenaFinalPlayer])

    /// The Huddle channel the executable sends this message on: 1 for state datagrams, 2 for reliable events.
    public var channel: UInt8 { self.isReliable ? 2 : 1 }

    /// Whether this message must be sent reliably and in order (everything except state).
    public var isReliable: Bool {
        if case .state = self { return false }
        return true
    }
}

/// The bounds the codec enforces on both encoding and decoding; the defaults are the game's.
public struct ArenaCodecLimits: Hashable, Sendable {
    /// Longest player, peer or display name in UTF-8 bytes: 32, enough for a host name, small for a datagram.
    public var maximumNameBytes: Int
    /// Most players in one state or final message: 4, the most a game has.
    public var maximumPlayersPerMessage: Int
    /// Longest encoded message: 1,200 bytes, so a state datagram fits one packet on any path without fragments.
    public var maximumMessageBytes: Int

    /// Values beyond what the layout can carry (255 for one-byte counts and lengths) are lowered to that.
    public init(maximumNameBytes: Int = 32, maximumPlayersPerMessage: Int = 4, maximumMessageBytes: Int = 1200) {
        self.maximumNameBytes = Swift.max(1, Swift.min(255, maximumNameBytes))
        self.maximumPlayersPerMessage = Swift.max(0, Swift.min(255, maximumPlayersPerMessage))
        self.maximumMessageBytes = Swift.max(2, maximumMessageBytes)
    }
}

extension ArenaMessage {
    /// Whether every player (and, for a final, the peer) the message names belongs to `peer`.
    public func speaks(for peer: String) -> Bool {
        switch self {
        case .state(_, let players): players.allSatisfy { $0.id.owner == peer }
        case .claim(let claim): claim.player.owner == peer
        case .join(let player, _): player.owner == peer
        case .final(let finished, let players): finished == peer && players.allSatisfy { $0.id.owner == peer }
        }
    }
}
