public import Foundation
public import HuddleDaemon

/// What the page reads and does, as closures (docs/web.md): the daemon's, or a test's.
public struct PageBackend: Sendable {
    public var state: @Sendable () async -> PageState
    /// Answers a waiting question; false when none has that number.
    public var answer: @Sendable (_ question: Int, _ accept: Bool) async -> Bool
    /// Takes an entry out of the outbox; false when none has that ID.
    public var cancel: @Sendable (_ id: String) async -> Bool
    public var now: @Sendable () -> Date

    public init(
        state: @escaping @Sendable () async -> PageState,
        answer: @escaping @Sendable (Int, Bool) async -> Bool,
        cancel: @escaping @Sendable (String) async -> Bool,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        (self.state, self.answer, self.cancel, self.now) = (state, answer, cancel, now)
    }

    /// The daemon's state and actions.
    public init(daemon: Daemon) {
        self.init(
            state: { await daemon.pageState() },
            answer: { await daemon.questions.answer($0, accept: $1) },
            cancel: { (try? daemon.outbox.remove($0)) ?? false }
        )
    }
}
