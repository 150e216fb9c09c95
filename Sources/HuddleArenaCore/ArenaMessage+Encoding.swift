/// Encoding, and the binary layout of ``ArenaMessage`` (version 1). All integers are big-endian; `i32` is two's complement.
///
/// ```
/// message  = version:u8 (=1)  kind:u8  body
/// id       = ownerLength:u8 (1...32)  owner:UTF-8  index:u8
/// name     = length:u8 (0...32)  UTF-8
/// state    kind 1: tick:u32  count:u8 (0...4)  count × (id  x:i32  y:i32)
/// claim    kind 2: coin:u32  tick:u32  id
/// join     kind 3: id  name
/// final    kind 4: peer:name (1...32 bytes)  count:u8 (0...4)  count × (id  name  x:i32  y:i32  reportedScore:u32)
/// ```
///
/// The largest possible message (a final of four players with 32-byte names) is 352 bytes, far below the
/// 1,200-byte limit; decoding still checks the limit first so that an oversized datagram costs nothing to reject.
extension ArenaMessage {
    static let layoutVersion: UInt8 = 1

    enum Kind: UInt8 {
        case state = 1
        case claim = 2
        case join = 3
        case final = 4
    }

    /// The message's bytes.
    ///
    /// - Throws: ``ArenaCodecError`` when a name or a player count is beyond `limits` (the peer could not decode it).
    public func encoded(limits: ArenaCodecLimits = ArenaCodecLimits()) throws(ArenaCodecError) -> [UInt8] {
        var writer = ArenaByteWriter()
        writer.append(Self.layoutVersion)
        switch self {
        case .state(let tick, let players):
            writer.append(Kind.state.rawValue)
            writer.append(tick)
            try Self.appendCount(players.count, to: &writer, limits: limits)
            for player in players {
                try Self.append(player.id, to: &writer, limits: limits)
                writer.append(player.position.x)
                writer.append(player.position.y)
            }
        case .claim(let claim):
            writer.append(Kind.claim.rawValue)
            writer.append(claim.coin)
            writer.append(claim.tick)
            try Self.append(claim.player, to: &writer, limits: limits)
        case .join(let player, let name):
            writer.append(Kind.join.rawValue)
            try Self.append(player, to: &writer, limits: limits)
            try writer.appendName(name, limits: limits, allowEmpty: true)
        case .final(let peer, let players):
            writer.append(Kind.final.rawValue)
            try writer.appendName(peer, limits: limits, allowEmpty: false)
            try Self.appendCount(players.count, to: &writer, limits: limits)
            for player in players {
                try Self.append(player.id, to: &writer, limits: limits)
                try writer.appendName(player.name, limits: limits, allowEmpty: true)
                writer.append(player.position.x)
                writer.append(player.position.y)
                writer.append(player.reportedScore)
            }
        }
        guard writer.bytes.count <= limits.maximumMessageBytes else {
            throw ArenaCodecError(
                .oversized,
                offset: 0,
                "\(writer.bytes.count) bytes, at most \(limits.maximumMessageBytes)"
            )
        }
        return writer.bytes
    }

    /// Decodes one whole message.

    static func append(
        _ id: ArenaPlayerID,
        to writer: inout ArenaByteWriter,
        limits: ArenaCodecLimits
    ) throws(ArenaCodecError) {
        try writer.appendName(id.owner, limits: limits, allowEmpty: false)
        writer.append(id.index)
    }

    static func appendCount(
        _ count: Int,
        to writer: inout ArenaByteWriter,
        limits: ArenaCodecLimits
    ) throws(ArenaCodecError) {
        guard count <= limits.maximumPlayersPerMessage else {
            throw ArenaCodecError(
                .tooManyPlayers,
                offset: 0,
                "\(count) players, at most \(limits.maximumPlayersPerMessage)"
            )
        }
        writer.append(UInt8(truncatingIfNeeded: count))
    }
}
