/// What the executable receives, merged into the match.
extension ArenaMatch {
    /// What to do after ``receive(_:)``.
    public enum ReceivedAction: Hashable, Sendable {
        /// Another peer's state datagram: hand its players to ``ArenaRemotePlayers`` (the match keeps no remote
        /// positions, since datagrams may be lost and must not affect the digest).
        case interpolate(tick: UInt32, players: [ArenaPlayerState])
        /// A reliable fact was merged.
        case recorded
        /// Nothing to do: an echo of this peer's own message, a repeated final, or players another peer does not own.
        case ignored
    }

    /// Merges one received message.
    ///
    /// - A claim is merged into ``ledger`` (the merge ignores arrival order); when its coin is at or past
    ///   ``liveCoin``, the live coin moves to the one after it. Claims still merge after ``finish()``.
    /// - A join records the player's name.
    /// - A final records the peer's players as they ended, keeping only players the peer owns (each peer is
    ///   authoritative for its own players only) and the first final a peer sends.
    public mutating func receive(_ message: ArenaMessage) -> ReceivedAction {
        switch message {
        case .state(let tick, let players):
            let remote = players.filter { $0.id.owner != self.peer }
            return remote.isEmpty ? .ignored : .interpolate(tick: tick, players: remote)
        case .claim(let claim):
            guard claim.player.owner != self.peer else { return .ignored }
            self.ledger.record(claim)
            if claim.coin >= self.liveCoin, !self.isFinished { self.liveCoin = claim.coin &+ 1 }
            return .recorded
        case .join(let player, let name):
            guard player.owner != self.peer else { return .ignored }
            self.names[player] = name
            return .recorded
        case .final(let peer, let players):
            guard peer != self.peer, self.finals[peer] == nil else { return .ignored }
            self.finals[peer] = players.filter { $0.id.owner == peer }
            return .recorded
        }
    }

    /// Merges one message that came from the peer named `sender`, as ``receive(_:)`` does, but only when it speaks
    /// for `sender` alone: its claim, join, final or state names `sender`'s players (and a final `sender` itself).
    /// A peer that claims a coin, sends a final or moves players for another peer is ignored, so it cannot change
    /// what the others agree on in that peer's name.
    public mutating func receive(_ message: ArenaMessage, from sender: String) -> ReceivedAction {
        guard message.speaks(for: sender) else { return .ignored }
        return receive(message)
    }

    /// Stops the game for this peer and records its own final.
    ///
    /// - Returns: The final message to send reliably, after every claim this peer made (the same reliable channel
    ///   keeps them in order, so whoever holds the final holds the claims). Calling it again returns the same final.
    public mutating func finish() -> ArenaMessage {
        if !self.isFinished {
            self.isFinished = true
            self.finals[self.peer] = self.localPlayers.map { player in
                ArenaFinalPlayer(
                    id: player.id,
                    name: player.name,
                    position: player.position,
                    reportedScore: UInt32(truncatingIfNeeded: self.ledger.score(of: player.id))
                )
            }
        }
        return .final(peer: self.peer, players: self.finals[self.peer] ?? [])
    }

    /// Every peer that has told this one it plays: this peer and the owner of every joined player.
    public var joinedPeers: Set<String> {
        Set(self.names.keys.map(\.owner)).union([self.peer])
    }

    /// Whether this peer has finished and holds the final of every peer in `peers` (its own name may be included).
    ///
    /// Once this is true the digest will not change: claims travel before finals on the same ordered channel.
    public func hasAllFinals(expecting peers: Set<String>) -> Bool {
        self.isFinished && peers.allSatisfy { self.finals[$0] != nil }
    }
}
