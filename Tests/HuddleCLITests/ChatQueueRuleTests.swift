import Huddle
import Testing

@testable import huddle

/// The chat's per-peer queue rule: a slow reader gets every line, a peer that stopped reading is dropped only
/// when the others kept up, and a machine where everyone is slow drops nothing.
@Suite("Chat queue rule")
struct ChatQueueRuleTests {
    let bob = PeerID(rawValue: "bob")
    let cy = PeerID(rawValue: "cy")

    @Test func linesQueueUntilTheQueueIsFullThenWait() {
        var rule = ChatQueueRule(maximumWaiting: 3)
        #expect((0..<3).map { _ in rule.admit(to: bob) } == [.queued, .queued, .queued])
        #expect(rule.admit(to: bob) == .wait)
        rule.took(from: bob)
        #expect(rule.admit(to: bob) == .queued)
        #expect(rule.waiting[bob] == 3)
    }

    @Test func aLonePeerThatStopsReadingIsWaitedForNeverDropped() {
        var rule = ChatQueueRule(maximumWaiting: 2)
        _ = rule.admit(to: bob)
        _ = rule.admit(to: bob)
        // However long it takes: the rule has no clock, and nobody else kept up meanwhile.
        for _ in 0..<1000 { #expect(rule.admit(to: bob) == .wait) }
    }

    @Test func aPeerThatTookNothingWhileTheOthersTookAFullQueueIsDropped() {
        var rule = ChatQueueRule(maximumWaiting: 4)
        for _ in 0..<4 {
            #expect(rule.admit(to: bob) == .queued)
            #expect(rule.admit(to: cy) == .queued)
        }
        // Cy stopped; Bob reads three of his four lines: Cy is behind, but by less than a queue.
        for _ in 0..<3 { rule.took(from: bob) }
        #expect(rule.admit(to: cy) == .wait)
        rule.took(from: bob)
        #expect(rule.admit(to: cy) == .dropped)
        // Lines to Bob still queue.
        #expect(rule.admit(to: bob) == .queued)
    }

    @Test func aSlowReaderThatTakesALineNowAndThenGetsEveryLine() {
        var rule = ChatQueueRule(maximumWaiting: 4)
        for _ in 0..<4 {
            _ = rule.admit(to: bob)
            _ = rule.admit(to: cy)
        }
        for round in 0..<100 {
            // Bob takes three lines for every one Cy takes: Cy is slow, not stopped.
            for _ in 0..<3 {
                rule.took(from: bob)
                #expect(rule.admit(to: bob) == .queued, "round \(round)")
            }
            #expect(rule.admit(to: cy) == .wait)
            rule.took(from: cy)
            #expect(rule.admit(to: cy) == .queued, "round \(round)")
        }
    }

    @Test func aDroppedPeerThatTakesALineAgainIsQueuedAgain() {
        var rule = ChatQueueRule(maximumWaiting: 2)
        for _ in 0..<2 {
            _ = rule.admit(to: bob)
            _ = rule.admit(to: cy)
        }
        for _ in 0..<2 { rule.took(from: bob) }
        #expect(rule.admit(to: cy) == .dropped)
        rule.took(from: cy)
        #expect(rule.admit(to: cy) == .queued)
    }

    @Test func aPeerThatLeftStartsAgainWithAnEmptyQueue() {
        var rule = ChatQueueRule(maximumWaiting: 1)
        _ = rule.admit(to: bob)
        rule.remove(bob)
        #expect(rule.waiting[bob] == nil)
        #expect(rule.admit(to: bob) == .queued)
    }
}
