/// A sliding anti-replay window over packet numbers, kept as a ring of 64-bit blocks (RFC 6479).
///
/// It remembers which of the last ``size`` packet numbers up to the highest one accepted have been seen. Anything
/// older than that is refused outright. Following RFC 6479 the ring holds one block more than the window needs, so
/// sliding forward only clears whole blocks and never shifts bits.
///
/// Checking and marking are separate on purpose (`docs/security.md` §3.7 receive order): a receiver calls
/// ``check(_:)`` before decrypting and ``mark(_:)`` only after the tag has verified, so a forged high packet number
/// can never move the window.
public struct ReplayWindow: Hashable, Sendable {
    /// How far behind the highest accepted packet number a packet may be and still be accepted: 1024, plenty for
    /// reordering on a LAN (WireGuard keeps 8128 for the internet).
    public static let size: UInt64 = 1024

    /// What ``check(_:)`` found.
    public enum Status: Hashable, Sendable {
        /// Not seen yet and within (or ahead of) the window.
        case fresh
        /// Already marked.
        case duplicate
        /// At least ``ReplayWindow/size`` behind the highest accepted packet number.
        case tooOld
    }

    private static let blockBits: UInt64 = 64
    private static let blockCount = Int(size / blockBits) + 1

    /// The highest packet number marked so far, or `nil` before the first one.
    public private(set) var highest: UInt64?
    private var blocks: [UInt64]

    /// An empty window: every packet number is fresh.
    public init() {
        self.highest = nil
        self.blocks = Array(repeating: 0, count: Self.blockCount)
    }

    /// Classifies `packetNumber` without changing anything.
    public func check(_ packetNumber: UInt64) -> Status {
        guard let highest, packetNumber <= highest else { return .fresh }
        if highest - packetNumber >= Self.size { return .tooOld }
        let (block, bit) = Self.position(of: packetNumber)
        return blocks[block] & bit == 0 ? .fresh : .duplicate
    }

    /// Records `packetNumber` as seen, sliding the window forward when it is the new highest.
    ///
    /// Call only for a packet that ``check(_:)`` found ``Status/fresh`` and whose tag has verified. Marking a
    /// too-old packet number does nothing.
    public mutating func mark(_ packetNumber: UInt64) {
        if let highest {
            if packetNumber > highest {
                let oldBlock = highest / Self.blockBits
                let newBlock = packetNumber / Self.blockBits
                let toClear = min(newBlock - oldBlock, UInt64(Self.blockCount))
                var index = oldBlock
                for _ in 0..<toClear {
                    index += 1
                    blocks[Int(index % UInt64(Self.blockCount))] = 0
                }
                self.highest = packetNumber
            } else if highest - packetNumber >= Self.size {
                return
            }
        } else {
            self.highest = packetNumber
        }
        let (block, bit) = Self.position(of: packetNumber)
        blocks[block] |= bit
    }

    private static func position(of packetNumber: UInt64) -> (block: Int, bit: UInt64) {
        let block = Int((packetNumber / blockBits) % UInt64(blockCount))
        return (block, 1 << (packetNumber % blockBits))
    }
}
