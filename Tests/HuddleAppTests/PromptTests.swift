import Foundation
import HuddleTestSupport
import Testing

@testable import HuddleApp

/// One reader of standard input for the whole process, and questions asked one at a time.
@Suite("Prompts", .timeLimit(.minutes(1)))
struct PromptTests {
    /// A prompter on lines the test types, and what it showed.
    final class Terminal: Sendable {
        let prompter: Prompter
        let typed: AsyncStream<Prompter.Line>.Continuation
        /// Each thing shown, in order.
        private let screen = EventRecorder<[String]>()

        init(typedAfterShown: Bool = false) {
            let (lines, typed) = AsyncStream<Prompter.Line>.makeStream()
            self.typed = typed
            prompter = Prompter(lines: lines, show: screen.sink, typedAfterShown: typedAfterShown)
        }

        func type(_ text: String, at time: ContinuousClock.Instant = .now) {
            typed.yield(Prompter.Line(text: text, at: time))
        }

        var shown: [[String]] { screen.events }

        /// Waits until `count` things were shown; returns them.
        func shown(count: Int) async throws -> [[String]] {
            try #require(await screen.count(atLeast: count) { _ in true }, "\(count) things shown: \(shown)")
            return shown
        }
    }

    /// Waits until `count` questions wait in `prompter`.
    ///
    /// The prompter reports no event when a question joins its queue (only what it shows), so this is a bounded
    /// retry of a probe of its state: each look is one call on the actor, 5 ms apart, for at most 30 s.
    static func untilWaiting(_ count: Int, in prompter: Prompter) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while await prompter.waiting < count {
            try #require(ContinuousClock.now < deadline, "\(count) questions waiting")
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test
    func twoConcurrentAskersEachGetTheirOwnAnswerInOrder() async throws {
        let terminal = Terminal()
        let prompter = terminal.prompter
        async let ada = prompter.confirm(["* first contact with Ada", "? connect to Ada? [y/n]"], key: "ada")
        async let bob = prompter.confirm(["* first contact with Bob", "? connect to Bob? [y/n]"], key: "bob")
        try await Self.untilWaiting(2, in: prompter)
        // Both wait; one question is on screen.
        let first = try #require(terminal.shown.first)
        #expect(terminal.shown.count == 1)
        let adaFirst = first[0].hasSuffix("Ada")
        let second = adaFirst ? "Bob" : "Ada"
        #expect(first[1] == "? connect to \(adaFirst ? "Ada" : "Bob")? [y/n] (#1)")
        terminal.type("y")
        let shown = try await terminal.shown(count: 2)
        #expect(shown[1] == ["* first contact with \(second)", "? connect to \(second)? [y/n] (#2)"])
        terminal.type("n")
        let answers = await (ada, bob)
        #expect(answers == (adaFirst ? (true, false) : (false, true)))
        #expect(await prompter.waiting == 0)
    }

    @Test
    func anAnswerNamingAnotherQuestionIsNotTaken() async throws {
        let terminal = Terminal()
        let prompter = terminal.prompter
        async let first = prompter.confirm(["? one [y/n]"])
        _ = try await terminal.shown(count: 1)
        terminal.type("y 2")
        #expect(try await terminal.shown(count: 2)[1] == ["(#2 is not the question on screen: answer #1 with y or n)"])
        terminal.type("maybe")
        #expect(try await terminal.shown(count: 3)[2] == ["(answer y or n to question #1)"])
        terminal.type("Y #1")
        #expect(await first == true)
    }

    @Test
    func onATerminalALineTypedBeforeTheQuestionCameUpDoesNotAnswerIt() async throws {
        let terminal = Terminal(typedAfterShown: true)
        let prompter = terminal.prompter
        let before = ContinuousClock.now
        async let answer = prompter.confirm(["? one [y/n]"])
        _ = try await terminal.shown(count: 1)
        terminal.type("y", at: before)
        #expect(try await terminal.shown(count: 2)[1] == ["(typed before question #1 came up: read it, then answer)"])
        terminal.type("n")
        #expect(await answer == false)
    }

    @Test
    func aWithdrawnQuestionGivesWayToTheNextAndTheEndOfInputAnswersNo() async throws {
        let terminal = Terminal()
        let prompter = terminal.prompter
        let one = Task { await prompter.decide(["? one [y/n]"], key: "one") }
        _ = try await terminal.shown(count: 1)
        let two = Task { await prompter.decide(["? two [y/n]"], key: "two") }
        try await Self.untilWaiting(2, in: prompter)
        #expect(await prompter.withdraw(key: "one", note: "* request one ended"))
        #expect(await one.value == nil)
        #expect(try await terminal.shown(count: 3).suffix(2) == [["* request one ended"], ["? two [y/n] (#2)"]])
        #expect(await !prompter.withdraw(key: "one"))
        terminal.typed.finish()
        #expect(await two.value == false)
        #expect(await prompter.confirm(["? three [y/n]"]) == false)
        #expect(await prompter.line(["which?"]) == nil)
    }

    @Test
    func linesThatAnswerNothingGoToTheirReader() async throws {
        let terminal = Terminal()
        let prompter = terminal.prompter
        var chat = await prompter.unclaimedLines().makeAsyncIterator()
        terminal.type("hello")
        #expect(await chat.next() == "hello")
        async let answer = prompter.confirm(["? one [y/n]"])
        _ = try await terminal.shown(count: 1)
        terminal.type("not an answer")
        #expect(await chat.next() == "not an answer")
        terminal.type("yes")
        #expect(await answer == true)
        async let picked = prompter.line(["Send to which?"])
        _ = try await terminal.shown(count: 2)
        terminal.type("1,3")
        #expect(await picked == "1,3")
        terminal.typed.finish()
        #expect(await chat.next() == nil)
    }

    @Test(
        arguments: [
            ("y", true, nil), ("Yes", true, nil), ("n", false, nil), ("NO", false, nil), ("y 2", true, 2),
            ("n #12", false, 12), ("  y  3 ", true, 3),
        ] as [(String, Bool, Int?)]
    )
    func answers(text: String, yes: Bool, number: Int?) throws {
        let answer = try #require(Prompter.answer(text.trimmingCharacters(in: .whitespaces)))
        #expect(answer.yes == yes && answer.number == number)
    }

    @Test(arguments: ["", "yy", "y 0", "y x", "y 1 2", "ok", "/quit", "1"])
    func notAnswers(text: String) {
        #expect(Prompter.answer(text) == nil)
    }
}
