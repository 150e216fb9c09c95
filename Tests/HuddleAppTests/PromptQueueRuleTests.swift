import HuddleTestSupport
import Testing

@testable import HuddleApp

/// Devices that flood the user with questions cannot answer everyone else's "no", or hold them back: one question
/// per asker, half the places for unknown askers, known askers first (docs/threat-model.md, "Foreign
/// peers").
@Suite struct PromptQueueRuleTests {
    typealias Asker = PromptQueueRule.Asker

    static func unknown(_ source: String) -> Asker { Asker(source: source, isKnown: false) }
    static func known(_ source: String) -> Asker { Asker(source: source, isKnown: true) }

    @Test func anAskerHasOneQuestionWaitingAtATimeTheUserAnyNumber() {
        var rule = PromptQueueRule(maximumWaiting: 16, maximumUnknown: 8)
        #expect(rule.admit(1, from: Self.unknown("10.0.0.9")) == .queued(at: 0))
        #expect(rule.admit(2, from: Self.unknown("10.0.0.9")) == .askerHasOne)
        #expect(rule.admit(3, from: Self.known("10.0.0.9")) == .askerHasOne)
        #expect(rule.admit(4, from: .user) == .queued(at: 1))
        #expect(rule.admit(5, from: .user) == .queued(at: 2))
        let onScreen = rule.remove(1)
        #expect(onScreen)
        #expect(rule.admit(6, from: Self.unknown("10.0.0.9")) == .queued(at: 2))
        #expect(rule.waiting.map(\.number) == [4, 5, 6])
    }

    @Test func unknownAskersHoldHalfThePlacesAndTheRestStaysForKnownOnes() {
        var rule = PromptQueueRule(maximumWaiting: 16, maximumUnknown: 8)
        for index in 1...8 {
            #expect(rule.admit(index, from: Self.unknown("10.0.0.\(index)")) == .queued(at: index - 1))
        }
        #expect(rule.admit(9, from: Self.unknown("10.0.0.9")) == .full)
        for index in 10...17 { #expect(rule.admit(index, from: Self.known("10.0.1.\(index)")) != .full) }
        #expect(rule.waiting.count == 16)
        #expect(rule.admit(18, from: Self.known("10.0.2.1")) == .full)
        #expect(rule.admit(19, from: .user) == .full)
    }

    @Test func knownQuestionsGoAheadOfWaitingUnknownOnesButNotOfTheOneOnScreen() {
        var rule = PromptQueueRule(maximumWaiting: 16, maximumUnknown: 8)
        #expect(rule.admit(1, from: Self.unknown("10.0.0.1")) == .queued(at: 0))
        #expect(rule.admit(2, from: Self.unknown("10.0.0.2")) == .queued(at: 1))
        #expect(rule.admit(3, from: Self.known("10.0.0.3")) == .queued(at: 1))
        #expect(rule.admit(4, from: .user) == .queued(at: 2))
        #expect(rule.admit(5, from: Self.unknown("10.0.0.5")) == .queued(at: 4))
        #expect(rule.waiting.map(\.number) == [1, 3, 4, 2, 5])
        let (waitingOne, onScreen, unknown) = (rule.remove(4), rule.remove(1), rule.remove(99))
        #expect(!waitingOne)
        #expect(onScreen)
        #expect(!unknown)
        #expect(rule.front == 3)
    }

    /// Twenty devices made up by one host ask to pair, and twenty hosts each ask once; then a paired device asks.
    /// The flood holds eight places (the 32 others are answered no at once), and the paired device's question is
    /// the next one shown. The askers come one after another, each refusal awaited as its answer, so nothing here
    /// depends on how fast the machine is.
    @Test(.timeLimit(.minutes(1))) func aFloodOfUnknownDevicesNeitherFillsThePromptNorHoldsBackAPairedOne() async throws
    {
        let (lines, typed) = AsyncStream<Prompter.Line>.makeStream()
        let screen = EventRecorder<[String]>()
        let prompter = Prompter(lines: lines, show: screen.sink)
        let askers =
            Array(repeating: Self.unknown("10.0.0.66"), count: 20) + (1...20).map { Self.unknown("10.0.1.\($0)") }
        var waiting: [Task<Bool, Never>] = []
        var refused = 0
        for (index, asker) in askers.enumerated() {
            let question = Task { await prompter.confirm(["? pair with a fake device?"], asker: asker) }
            // One place for the first host's first question, seven more for the next hosts: eight unknown askers.
            if index == 0 || (20..<27).contains(index) {
                waiting.append(question)
                try await PromptTests.untilWaiting(waiting.count, in: prompter)
            } else {
                #expect(await question.value == false, "asker \(index)")
                refused += 1
            }
        }
        #expect(refused == 32)
        #expect(waiting.count == 8)
        #expect(await prompter.waiting == 8)
        #expect(await screen.count(atLeast: 32) { $0.first?.hasPrefix("! ") == true })
        let paired = Task { await prompter.confirm(["? paired phone"], asker: Self.known("10.0.2.1")) }
        try await PromptTests.untilWaiting(9, in: prompter)
        typed.yield(Prompter.Line(text: "n", at: .now))
        #expect(await screen.contains { $0 == ["? paired phone (#9)"] })
        typed.yield(Prompter.Line(text: "y", at: .now))
        #expect(await paired.value)
        typed.finish()
        for question in waiting { #expect(await question.value == false) }
    }
}
