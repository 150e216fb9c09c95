import HuddleWire
import Synchronization

/// Files handed to the daemon to send once a person picks the device on its page (`huddle ui FILE…`, the file
/// managers' "Send with Huddle"; docs/web.md, "Send to"): each set under a random ID, with what its sends said.
/// The newest ``limit`` sets are kept; an older one is gone (its page then says so).
public final class StagedSends: Sendable {
    /// One set: its files (absolute paths) and the lines of the sends made of it so far.
    public struct Staged: Sendable, Equatable {
        public var id: String
        public var paths: [String]
        public var said: [String] = []
    }

    public static let limit = 32
    let sets = Mutex<[Staged]>([])

    public init() {}

    /// Keeps `paths` under a new ID, which it returns.
    public func stage(_ paths: [String]) -> String {
        let staged = Staged(id: Hex.randomToken(byteCount: 8), paths: paths)
        sets.withLock { sets in
            sets.append(staged)
            if sets.count > Self.limit { sets.removeFirst(sets.count - Self.limit) }
        }
        return staged.id
    }

    public func staged(_ id: String) -> Staged? { sets.withLock { $0.first { $0.id == id } } }

    /// Adds what a send of set `id` said.
    public func record(_ id: String, said lines: [String]) {
        sets.withLock { sets in
            guard let index = sets.firstIndex(where: { $0.id == id }) else { return }
            sets[index].said += lines
        }
    }
}
