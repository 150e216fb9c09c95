import HuddleTestSupport
import Testing

@testable import HuddleDaemon

/// The questions a daemon waits on a person for (`huddle answer`), on a manual clock.
@Suite("Pending questions")
struct PendingQuestionsTests {
    @Test("a question is listed with its number and answered yes or no")
    func answered() async {
        // Each question's number as it is asked, to await instead of polling.
        let (asked, askedSink) = AsyncStream.makeStream(of: Int.self)
        let questions = PendingQuestions(clock: ManualClock(), lifetime: .seconds(300))
        var numbers = asked.makeAsyncIterator()
        async let first = questions.ask(["? a.txt from Bob"]) { askedSink.yield($0.id) }
        #expect(await numbers.next() == 1)
        async let second = questions.ask(["? b.txt from Cy"]) { askedSink.yield($0.id) }
        #expect(await numbers.next() == 2)
        // The numbers are given before the questions are stored: wait until both are listed.
        while await questions.questions.count < 2 { await Task.yield() }
        #expect(await questions.questions.map(\.lines) == [["? a.txt from Bob"], ["? b.txt from Cy"]])
        #expect(await questions.answer(2, accept: false))
        #expect(await questions.answer(1, accept: true))
        #expect(await first)
        #expect(await !second)
        #expect(await !questions.answer(1, accept: true), "answered already")
        #expect(await !questions.answer(9, accept: true), "never asked")
    }

    @Test("a question nobody answers is declined when its time is up, not before")
    func expires() async {
        let clock = ManualClock()
        let questions = PendingQuestions(clock: clock, lifetime: .seconds(300))
        async let answer = questions.ask(["? a.txt from Bob"])
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .seconds(299))
        #expect(await questions.questions.count == 1)
        clock.advance(by: .seconds(1))
        #expect(await !answer)
        #expect(await questions.questions.isEmpty)
    }

    @Test("a question whose asker is cancelled (the daemon stops) is declined and no longer listed")
    func cancelled() async {
        let clock = ManualClock()
        let questions = PendingQuestions(clock: clock, lifetime: .seconds(300))
        let asking = Task { await questions.ask(["? a.txt from Bob"]) }
        #expect(await clock.waitForSleepers(1))
        while await questions.questions.isEmpty { await Task.yield() }
        asking.cancel()
        #expect(await !asking.value)
        #expect(await questions.questions.isEmpty)
    }
}
