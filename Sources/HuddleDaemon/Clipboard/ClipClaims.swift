import NIOConcurrencyHelpers

/// The `huddle clip receive` commands waiting, through the daemon, for items shared with its clipboard
/// (docs/daemon.md, "The clipboard"): a share goes to the oldest claim that takes its sender and is not busy with
/// another, instead of to the accept rules; with no such claim the rules settle it as before.
///
/// Pure apart from its lock: the daemon takes a claim for a share, settles it, and hands it back.
public final class ClipClaims: Sendable {
    /// One command's wish: who from, where to (a file, else the clipboard), whether to ask.
    public struct Claim: Sendable, Equatable {
        public var id: Int
        /// Take items only from the machine of this name; others' go to the rules.
        public var from: String?
        /// Save each item to this absolute path (the `type` representation, else the first) instead of the
        /// clipboard.
        public var out: String?
        public var type: String?
        /// Take each item without asking (`--yes`).
        public var assumesYes: Bool

        public init(id: Int = 0, from: String? = nil, out: String? = nil, type: String? = nil, assumesYes: Bool = false)
        {
            (self.id, self.from, self.out, self.type, self.assumesYes) = (id, from, out, type, assumesYes)
        }
    }

    struct State {
        var nextID = 1
        /// Oldest first.
        var waiting: [Claim] = []
        var busy: Set<Int> = []
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// Adds `claim` (its `id` is set here) and returns its id.
    public func add(_ claim: Claim) -> Int {
        state.withLockedValue { state in
            var claim = claim
            claim.id = state.nextID
            state.nextID += 1
            state.waiting.append(claim)
            return claim.id
        }
    }

    /// The oldest claim that takes a share from `sender` and is not busy, now busy; nil when none does.
    public func take(from sender: String) -> Claim? {
        state.withLockedValue { state in
            guard
                let claim = state.waiting.first(where: { claim in
                    !state.busy.contains(claim.id) && (claim.from == nil || claim.from == sender)
                })
            else { return nil }
            state.busy.insert(claim.id)
            return claim
        }
    }

    /// The share taken with claim `id` is settled: the claim may take the next.
    public func release(_ id: Int) {
        _ = state.withLockedValue { $0.busy.remove(id) }
    }

    /// Takes claim `id` out: its command left or has all it asked for.
    public func remove(_ id: Int) {
        state.withLockedValue { state in
            state.waiting.removeAll { $0.id == id }
            state.busy.remove(id)
        }
    }

    /// How many claims wait.
    public var count: Int { state.withLockedValue { $0.waiting.count } }
}
