import HuddleArenaCore

/// huddle-arena's messages (`docs/realtime.md`, "The example game"), which come from other peers: the input is
/// split at each 0xFF byte into messages decoded one after another and merged into one match, as a peer's stream
/// of state datagrams and reliable facts would be.
///
/// Checked for each: a message that decodes encodes back to the very same bytes (the layout is canonical, so the
/// digest of two peers cannot differ by encoding); a message that does not is refused with an offset inside it;
/// the match ignores what claims to be its own players; the other players it interpolates stay within its bound,
/// and every coin's winner is the earliest claim for it.
public func fuzzArenaMessages(_ input: UnsafeRawBufferPointer) throws(FuzzInvariantViolation) {
    var match = ArenaMatch(peer: "self", seed: 7)
    var remote = ArenaRemotePlayers()
    var claims: [UInt32: [ArenaClaim]] = [:]
    var time: Int64 = 0
    for piece in Array(input).split(separator: 0xFF, omittingEmptySubsequences: false) {
        let bytes = Array(piece)
        let message: ArenaMessage
        do {
            message = try ArenaMessage(decoding: bytes)
        } catch {
            try require(error.offset >= 0 && error.offset <= max(bytes.count, 1), "a refusal points outside it")
            continue
        }
        let again = try? message.encoded()
        try require(again == bytes, "a decoded message does not encode to the same bytes")
        if case .claim(let claim) = message, claim.player.owner != match.peer {
            claims[claim.coin, default: []].append(claim)
        }
        time += 20
        if case .interpolate(let tick, let players) = match.receive(message) {
            try require(players.allSatisfy { $0.id.owner != match.peer }, "another peer moved this peer's players")
            remote.received(tick: tick, players: players, atMilliseconds: time)
        }
        try require(remote.positions(now: time).count <= remote.maximumPlayers, "more players than the bound")
    }
    for (coin, made) in claims {
        let earliest = made.min { $0.precedes($1) }
        try require(match.ledger.winners[coin] == earliest, "a coin's winner is not its earliest claim")
    }
}
