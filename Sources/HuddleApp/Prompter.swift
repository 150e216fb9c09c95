import Foundation

/// Standard input's one reader, and the questions the process asks on it: one on screen at a time.
///
/// A question is shown when it reaches the front of the queue, its last line ending in its number, `(#3)`. Only
/// the question on screen can be answered: `y` or `n` (also `yes`, `no`), or naming it, `y 3`; an answer that
/// names another number is refused. On a terminal, a line typed before the question appeared does not answer it
/// (two quick `y`s do not answer a question nobody has read). Lines that answer nothing go to
/// ``unclaimedLines()`` (chat text, commands), if someone reads them. At the end of input every question, asked
/// or still to come, is answered no. Which questions may wait, and in which order, is ``PromptQueueRule``'s: one
/// per asker, a share for unknown askers, known askers first.
///
/// Its input is an `AsyncStream` of lines, which allows one reader at a time: every part of a program asks here
/// (the command line's `Prompter.standard` reads standard input), so the stream has exactly one.
public actor Prompter {
    /// A line of input and when it was read.
    public struct Line: Sendable {
        public var text: String
        public var at: ContinuousClock.Instant

        public init(text: String, at: ContinuousClock.Instant) {
            self.text = text
            self.at = at
        }
    }

    private enum Kind {
        /// A y/n question.
        case confirmation
        /// Any line answers it.
        case line
    }

    /// How a question ended.
    private enum Reply {
        case typed(String)
        /// End of input, or too many questions waiting.
        case none
        /// Taken back with ``withdraw(key:note:)``.
        case withdrawn
    }

    private struct Question {
        let number: Int
        let lines: [String]
        let kind: Kind
        let key: String?
        let numbered: Bool
        let continuation: CheckedContinuation<Reply, Never>
    }

    /// The most questions waiting at once; one more is answered no at once (a flood of requests cannot bury
    /// the screen).
    public static let maximumWaiting = 16
    /// How many of them unknown askers may hold (``PromptQueueRule``): half.
    public static let maximumUnknown = 8

    private let lines: AsyncStream<Line>
    private let show: @Sendable ([String]) -> Void
    private let typedAfterShown: Bool
    private var reading = false
    private var ended = false
    /// The order of the questions waiting (by number), the first on screen.
    private var rule = PromptQueueRule(maximumWaiting: Prompter.maximumWaiting, maximumUnknown: Prompter.maximumUnknown)
    private var questions: [Int: Question] = [:]
    private var shownAt: ContinuousClock.Instant?
    private var nextNumber = 1
    private var unclaimed: AsyncStream<String>.Continuation?

    /// - Parameters:
    ///   - lines: the input, read from the first question or ``unclaimedLines()`` call on.
    ///   - show: shows a question's lines (and the notes about answers: refused, typed too early).
    ///   - typedAfterShown: whether an answer must have been read after its question was shown (on a terminal).
    public init(
        lines: AsyncStream<Line>,
        show: @escaping @Sendable ([String]) -> Void,
        typedAfterShown: Bool = false
    ) {
        self.lines = lines
        self.show = show
        self.typedAfterShown = typedAfterShown
    }

    /// Asks a y/n question; true for yes. No at the end of input, or when withdrawn.
    ///
    /// - Parameters:
    ///   - lines: what to show when the question comes up; the last is the question itself.
    ///   - key: names the question for ``withdraw(key:note:)``.
    ///   - numbered: whether to end the last line with the question's number (not for a JSON line).
    ///   - asker: who asks (``PromptQueueRule``): the user's own question unless told.
    public func confirm(
        _ lines: [String],
        key: String? = nil,
        numbered: Bool = true,
        asker: PromptQueueRule.Asker = .user
    ) async -> Bool {
        await decide(lines, key: key, numbered: numbered, asker: asker) ?? false
    }

    /// Shows `lines` without asking anything (what a `--yes` answers, a note about a request).
    public func say(_ lines: [String]) {
        show(lines)
    }

    /// Asks `question`; with `assumingYes` (a command's `--yes`) only prints it and answers yes.
    public func confirm(_ question: String, assumingYes: Bool) async -> Bool {
        await confirm([question], assumingYes: assumingYes)
    }

    /// As ``confirm(_:key:numbered:asker:)``; under `assumingYes` the lines are shown and the answer is yes.
    public func confirm(
        _ lines: [String],
        assumingYes: Bool,
        numbered: Bool = true,
        asker: PromptQueueRule.Asker = .user
    ) async -> Bool {
        guard !assumingYes else {
            show(lines)
            return true
        }
        return await confirm(lines, numbered: numbered, asker: asker)
    }

    /// As ``confirm(_:key:numbered:)``, but nil when the question was withdrawn (nobody answered it).
    public func decide(
        _ lines: [String],
        key: String? = nil,
        numbered: Bool = true,
        asker: PromptQueueRule.Asker = .user
    ) async -> Bool? {
        switch await ask(lines, kind: .confirmation, key: key, numbered: numbered, asker: asker) {
        case .typed(let answer): answer == "y"
        case .none: false
        case .withdrawn: nil
        }
    }

    /// Asks for a line (any text answers); nil at the end of input.
    public func line(_ lines: [String]) async -> String? {
        guard case .typed(let line) = await ask(lines, kind: .line, key: nil, numbered: false, asker: .user) else {
            return nil
        }
        return line
    }

    /// The lines that answer no question, for one reader (a chat's text and commands); finished at the end of
    /// input.
    public func unclaimedLines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        if ended {
            continuation.finish()
        } else {
            unclaimed = continuation
            startReading()
        }
        return stream
    }

    /// Takes back the question asked with `key` (answered no). If it was on screen, shows `note` and the next
    /// question, and returns true; else false (the caller may say `note` itself).
    @discardableResult
    public func withdraw(key: String, note: String? = nil) -> Bool {
        guard let question = rule.waiting.lazy.compactMap({ self.questions[$0.number] }).first(where: { $0.key == key })
        else { return false }
        let wasOnScreen = rule.remove(question.number)
        questions[question.number] = nil
        question.continuation.resume(returning: .withdrawn)
        guard wasOnScreen else { return false }
        if let note { show([note]) }
        showFront()
        return true
    }

    /// How many questions wait, the one on screen included.
    public var waiting: Int { rule.waiting.count }

    /// The question on screen.
    private var front: Question? { rule.front.flatMap { questions[$0] } }

    private func ask(
        _ lines: [String],
        kind: Kind,
        key: String?,
        numbered: Bool,
        asker: PromptQueueRule.Asker
    ) async -> Reply {
        startReading()
        return await withCheckedContinuation { continuation in
            guard !ended else { return continuation.resume(returning: .none) }
            let number = nextNumber
            switch rule.admit(number, from: asker) {
            case .full:
                show(["! too many questions waiting; answered no: \(lines.last ?? "")"])
                return continuation.resume(returning: .none)
            case .askerHasOne:
                show(["! a question from the same device is waiting; answered no: \(lines.last ?? "")"])
                return continuation.resume(returning: .none)
            case .queued(let place):
                nextNumber += 1
                questions[number] = Question(
                    number: number,
                    lines: lines,
                    kind: kind,
                    key: key,
                    numbered: numbered,
                    continuation: continuation
                )
                if place == 0 { showFront() }
            }
        }
    }

    private func showFront() {
        shownAt = nil
        guard let question = front else { return }
        var lines = question.lines
        if question.numbered, let last = lines.popLast() { lines.append("\(last) (#\(question.number))") }
        // Marked before it is written: a line read once the question can be on screen answers it. (Marked after,
        // an answer typed as soon as the question appeared could be read between the write and the mark and be
        // refused as typed before it, leaving the question waiting for a second answer.)
        shownAt = .now
        if !lines.isEmpty { show(lines) }
    }

    private func startReading() {
        guard !reading else { return }
        reading = true
        let lines = self.lines
        Task {
            for await line in lines { self.received(line) }
            self.endOfInput()
        }
    }

    private func received(_ line: Line) {
        let text = line.text.trimmingCharacters(in: .whitespaces)
        guard let question = front else {
            unclaimed?.yield(line.text)
            return
        }
        let answer = Self.answer(text)
        if typedAfterShown, let shownAt, line.at < shownAt {
            if answer != nil || question.kind == .line {
                show(["(typed before question #\(question.number) came up: read it, then answer)"])
            } else {
                unclaimed?.yield(line.text)
            }
            return
        }
        switch question.kind {
        case .line:
            finishFront(with: line.text)
        case .confirmation:
            guard let (yes, number) = answer else {
                if let unclaimed {
                    unclaimed.yield(line.text)
                } else if !text.isEmpty {
                    show(["(answer y or n to question #\(question.number))"])
                }
                return
            }
            if let number, number != question.number {
                show(["(#\(number) is not the question on screen: answer #\(question.number) with y or n)"])
                return
            }
            finishFront(with: yes ? "y" : "n")
        }
    }

    private func finishFront(with answer: String) {
        guard let question = front else { return }
        rule.remove(question.number)
        questions[question.number] = nil
        question.continuation.resume(returning: .typed(answer))
        showFront()
    }

    private func endOfInput() {
        ended = true
        let asked = rule.waiting.compactMap { questions[$0.number] }
        rule = PromptQueueRule(maximumWaiting: Self.maximumWaiting, maximumUnknown: Self.maximumUnknown)
        questions = [:]
        for question in asked { question.continuation.resume(returning: .none) }
        unclaimed?.finish()
        unclaimed = nil
    }

    /// `y`, `yes`, `n`, `no` (any case), optionally followed by the question's number (`y 2`, `n #2`): whether
    /// yes, and the number given; nil for anything else.
    public static func answer(_ text: String) -> (yes: Bool, number: Int?)? {
        let words = text.lowercased().split(whereSeparator: \.isWhitespace)
        guard (1...2).contains(words.count) else { return nil }
        let yes: Bool
        switch words[0] {
        case "y", "yes": yes = true
        case "n", "no": yes = false
        default: return nil
        }
        guard words.count == 2 else { return (yes, nil) }
        let digits = words[1].hasPrefix("#") ? words[1].dropFirst() : words[1][...]
        guard let number = Int(digits), number > 0 else { return nil }
        return (yes, number)
    }
}
