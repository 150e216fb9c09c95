/// The bytes every peer hashes at the end (the executable uses SHA-256); built only from facts that travel
/// reliably, so peers that lost different datagrams still produce the same bytes.
///
/// Layout (version 1, integers big-endian, `i32` two's complement):
///
/// ```
/// magic "HADG" (48 41 44 47)  version:u8 (=1)  seed:u64
/// coins:   count:u32, then per won coin in ascending coin order:  coin:u32  tick:u32  id
/// scores:  count:u32, then per player in ArenaPlayerID order:     id  wins:u32
/// finals:  count:u32, then per player in ArenaPlayerID order:     id  x:i32  y:i32
/// id = ownerLength:u32  owner:UTF-8  index:u8
/// ```
///
/// The scores list every player that appears in a final or won a coin (zero wins included) and counts the merged
/// winners, never the score a final reports. The finals list every player of every final, once.
public enum ArenaDigest {
    static let magic: [UInt8] = [0x48, 0x41, 0x44, 0x47]
    static let version: UInt8 = 1

    /// The canonical bytes of a ledger and a set of finals.
    public static func canonicalBytes(
        seed: UInt64,
        ledger: ArenaClaimLedger,
        finals: [String: [ArenaFinalPlayer]]
    ) -> [UInt8] {
        var writer = ArenaByteWriter()
        for byte in Self.magic { writer.append(byte) }
        writer.append(Self.version)
        writer.append(seed)

        let winners = ledger.sortedWinners
        writer.append(UInt32(truncatingIfNeeded: winners.count))
        for claim in winners {
            writer.append(claim.coin)
            writer.append(claim.tick)
            Self.append(claim.player, to: &writer)
        }

        var positions: [ArenaPlayerID: ArenaPosition] = [:]
        for peer in finals.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            for player in finals[peer] ?? [] where positions[player.id] == nil {
                positions[player.id] = player.position
            }
        }
        let wins = ledger.scores
        let scored = Set(positions.keys).union(wins.keys).sorted()
        writer.append(UInt32(truncatingIfNeeded: scored.count))
        for player in scored {
            Self.append(player, to: &writer)
            writer.append(UInt32(truncatingIfNeeded: wins[player] ?? 0))
        }

        let finished = positions.keys.sorted()
        writer.append(UInt32(truncatingIfNeeded: finished.count))
        for player in finished {
            Self.append(player, to: &writer)
            writer.append(positions[player]?.x ?? 0)
            writer.append(positions[player]?.y ?? 0)
        }
        return writer.bytes
    }

    private static func append(_ id: ArenaPlayerID, to writer: inout ArenaByteWriter) {
        writer.appendLongString(id.owner)
        writer.append(id.index)
    }
}

extension ArenaMatch {
    /// The digest input: see ``ArenaDigest`` for the layout. Stable once ``hasAllFinals(expecting:)`` is true.
    public func canonicalBytes() -> [UInt8] {
        ArenaDigest.canonicalBytes(seed: self.seed, ledger: self.ledger, finals: self.finals)
    }
}
