/// The questions the daemon waits on someone to answer (docs/daemon.md, "Accept rules"): each has a number, is
/// listed by `huddle answer` and answered by `huddle answer N yes|no`, and is declined when nobody answers within
/// ``lifetime`` or the daemon stops — the sender is never left waiting forever.
public actor PendingQuestions<C: Clock<Duration>> {
    /// A question as listed: its number and its words.
    public struct Question: Sendable, Equatable {
        public let id: Int
        public let lines: [String]
    }

    let clock: C
    public let lifetime: Duration
    var waiting: [Int: (question: Question, answer: CheckedContinuation<Bool, Never>)] = [:]
    var nextID = 1

    public init(clock: C, lifetime: Duration = .seconds(300)) {
        self.clock = clock
        self.lifetime = lifetime
    }

    /// The questions waiting, oldest first.
    public var questions: [Question] { waiting.values.map(\.question).sorted { $0.id < $1.id } }

    /// Puts a question and waits for its answer: false when declined, unanswered in time, or cancelled.
    /// `asked` learns its number first (to say how to answer it).
    public func ask(_ lines: [String], asked: @Sendable (Question) -> Void = { _ in }) async -> Bool {
        let id = nextID
        nextID += 1
        let question = Question(id: id, lines: lines)
        asked(question)
        let expiry = Task { [clock, lifetime] in
            try await clock.sleep(for: lifetime)
            _ = self.settle(id, false)
        }
        defer { expiry.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(returning: false)
                } else {
                    waiting[id] = (question, continuation)
                }
            }
        } onCancel: {
            Task { await self.settle(id, false) }
        }
    }

    /// Answers question `id`; false when no such question waits (answered, expired, never asked).
    @discardableResult
    public func answer(_ id: Int, accept: Bool) -> Bool { settle(id, accept) }

    func settle(_ id: Int, _ accept: Bool) -> Bool {
        guard let entry = waiting.removeValue(forKey: id) else { return false }
        entry.answer.resume(returning: accept)
        return true
    }
}
