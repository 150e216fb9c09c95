/// A player, named by the peer that owns it and a small number that peer chose.
///
/// Each peer is authoritative for its own players, so an identifier only has to be unique within its owner: the
/// owner's peer name makes it unique in the whole session without any coordination.
///
/// Equality, hashing and order all use the UTF-8 bytes of ``owner`` (never Unicode canonical equivalence), so every
/// peer, on every platform, sorts players the same way: by ``owner`` bytes, shorter prefix first, then by ``index``.
/// That order breaks ties between claims (``ArenaClaim``) and lays out the digest (``ArenaMatch/canonicalBytes()``).
public struct ArenaPlayerID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The peer name of the owner; at most ``ArenaCodecLimits/maximumNameBytes`` bytes of UTF-8 to travel.
    public var owner: String
    /// The owner's number for this player (0 for a human, 1, 2, … for bots, or any scheme the owner likes).
    public var index: UInt8

    public init(owner: String, index: UInt8) {
        self.owner = owner
        self.index = index
    }

    public var description: String { "\(self.owner)#\(self.index)" }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.index == rhs.index && lhs.owner.utf8.elementsEqual(rhs.owner.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        for byte in self.owner.utf8 { hasher.combine(byte) }
        hasher.combine(self.owner.utf8.count)
        hasher.combine(self.index)
    }

    /// Owner bytes compared lexicographically (a prefix sorts first), then the index.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.owner.utf8.elementsEqual(rhs.owner.utf8) { return lhs.index < rhs.index }
        return lhs.owner.utf8.lexicographicallyPrecedes(rhs.owner.utf8)
    }
}
