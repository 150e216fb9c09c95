import HuddleArenaCore

/// Peers wired to each other by hand: every message goes through the codec, state datagrams are dropped at a seeded
/// rate, reliable messages arrive in order per sender after a seeded delay of a few ticks.
struct SimulatedPeers {
    struct Peer {
        var match: ArenaMatch
        var bots: [ArenaPlayerID: ArenaBot]
        var remote = ArenaRemotePlayers()
        var statesReceived = 0
    }

    struct InFlight {
        var deliverAtTick: Int
        var from: Int
        var to: Int
        var bytes: [UInt8]
    }

    var peers: [Peer] = []
    var reliable: [InFlight] = []
    var network: SplitMix64
    let dropOneIn: UInt64
    var statesDropped = 0
    /// Claims made by all peers; more than the coins won when two peers claimed the same coin.
    var claimsMade = 0
    var now = 0

    /// `botsPerPeer[i]` bots on peer `i`, named `peer0`, `peer1`, …
    init(seed: UInt64, botsPerPeer: [Int], dropOneIn: UInt64 = 10) throws {
        self.network = SplitMix64(seed: seed ^ 0xFEED)
        self.dropOneIn = dropOneIn
        for (number, bots) in botsPerPeer.enumerated() {
            var match = ArenaMatch(peer: "peer\(number)", seed: seed)
            var brains: [ArenaPlayerID: ArenaBot] = [:]
            self.peers.append(Peer(match: match, bots: [:]))
            for index in 0..<bots {
                if let join = match.addLocalPlayer(index: UInt8(index), name: "bot \(index)") {
                    try self.sendReliably(join, from: number)
                }
                brains[ArenaPlayerID(owner: match.peer, index: UInt8(index))] = ArenaBot(
                    seed: seed &+ UInt64(number * 16 + index)
                )
            }
            self.peers[number] = Peer(match: match, bots: brains)
        }
    }

    mutating func sendReliably(_ message: ArenaMessage, from sender: Int) throws {
        let bytes = try message.encoded()
        for receiver in self.peers.indices where receiver != sender {
            let delay = Int(SplitMix64.reduce(self.network.next(), below: 4))
            // In order per sender and receiver: never before the last message already queued on that path.
            let last = self.reliable.last { $0.from == sender && $0.to == receiver }?.deliverAtTick ?? 0
            self.reliable.append(
                InFlight(deliverAtTick: max(self.now + delay, last), from: sender, to: receiver, bytes: bytes)
            )
        }
    }

    /// One tick everywhere: bots decide, matches step, claims go reliably, states go as lossy datagrams.
    mutating func tick() throws {
        self.now += 1
        for number in self.peers.indices {
            var peer = self.peers[number]
            var inputs: [ArenaPlayerID: ArenaDirection] = [:]
            for player in peer.match.localPlayers {
                inputs[player.id] = peer.bots[player.id]?.direction(for: player, in: peer.match)
            }
            let claims = peer.match.step(inputs: inputs)
            self.peers[number] = peer
            self.claimsMade += claims.count
            for claim in claims { try self.sendReliably(claim, from: number) }
            let state = try peer.match.stateMessage().encoded()
            for receiver in self.peers.indices where receiver != number {
                if SplitMix64.reduce(self.network.next(), below: self.dropOneIn) == 0 {
                    self.statesDropped += 1
                } else {
                    try self.deliver(state, to: receiver)
                }
            }
        }
        try self.deliverReliable(upTo: self.now)
    }

    mutating func deliverReliable(upTo tick: Int) throws {
        let due = self.reliable.filter { $0.deliverAtTick <= tick }
        self.reliable.removeAll { $0.deliverAtTick <= tick }
        for message in due { try self.deliver(message.bytes, to: message.to) }
    }

    mutating func deliver(_ bytes: [UInt8], to receiver: Int) throws {
        let message = try ArenaMessage(decoding: bytes)
        if case .interpolate(let tick, let players) = self.peers[receiver].match.receive(message) {
            self.peers[receiver].remote.received(tick: tick, players: players, atMilliseconds: Int64(self.now) * 50)
            self.peers[receiver].statesReceived += 1
        }
    }

    /// Every peer finishes, then everything still in flight arrives.
    mutating func finish() throws {
        for number in self.peers.indices {
            let final = self.peers[number].match.finish()
            try self.sendReliably(final, from: number)
        }
        try self.deliverReliable(upTo: .max)
    }
}
