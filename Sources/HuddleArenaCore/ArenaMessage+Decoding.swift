/// Decoding of the layout in `ArenaMessage+Encoding.swift`: bounded, and throwing rather than trapping.
extension ArenaMessage {
    /// Decodes one whole message.
    ///
    /// - Throws: ``ArenaCodecError`` on input that is too long, too short, of an unknown version or kind, with a
    ///   name or count beyond `limits`, with names that are not UTF-8, or with bytes left over. It never traps.
    public init(decoding bytes: [UInt8], limits: ArenaCodecLimits = ArenaCodecLimits()) throws(ArenaCodecError) {
        guard bytes.count <= limits.maximumMessageBytes else {
            throw ArenaCodecError(.oversized, offset: 0, "\(bytes.count) bytes, at most \(limits.maximumMessageBytes)")
        }
        var reader = ArenaByteReader(bytes)
        let version = try reader.readUInt8()
        guard version == Self.layoutVersion else {
            throw ArenaCodecError(.unsupportedVersion, offset: 0, "layout version \(version)")
        }
        let kindByte = try reader.readUInt8()
        guard let kind = Kind(rawValue: kindByte) else {
            throw ArenaCodecError(.unknownKind, offset: 1, "message kind \(kindByte)")
        }
        switch kind {
        case .state:
            let tick = try reader.readUInt32()
            var players: [ArenaPlayerState] = []
            for _ in 0..<(try Self.readCount(&reader, limits: limits)) {
                let id = try Self.readID(&reader, limits: limits)
                let position = ArenaPosition(x: try reader.readInt32(), y: try reader.readInt32())
                players.append(ArenaPlayerState(id: id, position: position))
            }
            self = .state(tick: tick, players: players)
        case .claim:
            let coin = try reader.readUInt32()
            let tick = try reader.readUInt32()
            self = .claim(ArenaClaim(coin: coin, player: try Self.readID(&reader, limits: limits), tick: tick))
        case .join:
            let player = try Self.readID(&reader, limits: limits)
            self = .join(player: player, name: try reader.readName(limits: limits, allowEmpty: true))
        case .final:
            let peer = try reader.readName(limits: limits, allowEmpty: false)
            var players: [ArenaFinalPlayer] = []
            for _ in 0..<(try Self.readCount(&reader, limits: limits)) {
                let id = try Self.readID(&reader, limits: limits)
                let name = try reader.readName(limits: limits, allowEmpty: true)
                let position = ArenaPosition(x: try reader.readInt32(), y: try reader.readInt32())
                let score = try reader.readUInt32()
                players.append(ArenaFinalPlayer(id: id, name: name, position: position, reportedScore: score))
            }
            self = .final(peer: peer, players: players)
        }
        guard reader.isAtEnd else {
            throw ArenaCodecError(
                .trailingBytes,
                offset: reader.offset,
                "\(bytes.count - reader.offset) bytes left over"
            )
        }
    }

    static func readID(
        _ reader: inout ArenaByteReader,
        limits: ArenaCodecLimits
    ) throws(ArenaCodecError)
        -> ArenaPlayerID
    {
        let owner = try reader.readName(limits: limits, allowEmpty: false)
        return ArenaPlayerID(owner: owner, index: try reader.readUInt8())
    }

    static func readCount(
        _ reader: inout ArenaByteReader,
        limits: ArenaCodecLimits
    ) throws(ArenaCodecError)
        -> Int
    {
        let start = reader.offset
        let count = Int(try reader.readUInt8())
        guard count <= limits.maximumPlayersPerMessage else {
            throw ArenaCodecError(
                .tooManyPlayers,
                offset: start,
                "\(count) players, at most \(limits.maximumPlayersPerMessage)"
            )
        }
        return count
    }
}
