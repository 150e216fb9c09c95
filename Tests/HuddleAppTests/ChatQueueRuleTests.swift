import Huddle
import Testing

@testable import HuddleApp

/// The chat's per-peer queue rule: a slow reader gets every line, a peer that stopped reading is dropped only
/// when another kept up and it took nothing for the stall limit, and nothing is dropped when nobody kept up.
@Suite("Chat queue rule")
struct ChatQueueRuleTests {
    let bob = PeerID(rawValue: "bob")
    let cy = PeerID(rawValue: "cy")
    let dee = PeerID(rawValue: "dee")
    let start = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .seconds(seconds) }

    /// Gives `count` lines to each of `peers` at `seconds`, expecting each to be queued.
    func fill(_ rule: inout ChatQueueRule, _ peers: [PeerID], count: Int, at seconds: Double = 0) {
        for _ in 0..<count {
            for peer in peers { #expect(rule.admit(to: peer, now: at(seconds)) == .queued) }
        }
    }

    @Test func linesQueueUntilTheQueueIsFullThenWait() {
        var rule = ChatQueueRule(maximumWaiting: 3)
        fill(&rule, [bob], count: 3)
        #expect(rule.admit(to: bob, now: at(0)) == .wait(recheckAt: nil))
        rule.took(from: bob, now: at(0.1))
        #expect(rule.admit(to: bob, now: at(0.1)) == .queued)
        #expect(rule.waiting[bob] == 3)
    }

    @Test func aLonePeerThatStopsReadingIsWaitedForNeverDropped() {
        var rule = ChatQueueRule(maximumWaiting: 2)
        fill(&rule, [bob], count: 2)
        // However long it takes: nobody else kept up meanwhile.
        for minute in 0..<100 { #expect(rule.admit(to: bob, now: at(Double(minute) * 60)) == .wait(recheckAt: nil)) }
    }

    @Test func aPeerThatTookNothingForTheStallLimitWhileAnotherTookEverythingIsDropped() {
        var rule = ChatQueueRule(maximumWaiting: 4, stallLimit: .seconds(2))
        fill(&rule, [bob, cy], count: 4)
        // Cy stopped; Bob reads three of his four lines: nobody has kept up yet, so only a take can change things.
        for _ in 0..<3 { rule.took(from: bob, now: at(0.5)) }
        #expect(rule.admit(to: cy, now: at(0.5)) == .wait(recheckAt: nil))
        // Bob takes his last line: Cy is a whole queue behind him, and is looked at again 2 s after its last line.
        rule.took(from: bob, now: at(0.6))
        #expect(rule.admit(to: cy, now: at(0.6)) == .wait(recheckAt: at(2)))
        #expect(rule.admit(to: cy, now: at(1.99)) == .wait(recheckAt: at(2)))
        #expect(rule.admit(to: cy, now: at(2)) == .dropped)
        // Lines to Bob still queue; lines to Cy are dropped at once from now on, though Bob is not empty.
        #expect(rule.admit(to: bob, now: at(2)) == .queued)
        #expect(rule.admit(to: cy, now: at(2.01)) == .dropped)
    }

    @Test func theStallLimitCountsFromThePeersLastTake() {
        var rule = ChatQueueRule(maximumWaiting: 2, stallLimit: .seconds(2))
        fill(&rule, [bob, cy], count: 2)
        rule.took(from: cy, now: at(5))
        #expect(rule.admit(to: cy, now: at(5)) == .queued)
        for _ in 0..<2 { rule.took(from: bob, now: at(5.1)) }
        #expect(rule.admit(to: cy, now: at(6)) == .wait(recheckAt: at(7)))
        #expect(rule.admit(to: cy, now: at(7)) == .dropped)
    }

    @Test func aSlowReaderThatTakesALineNowAndThenGetsEveryLine() {
        var rule = ChatQueueRule(maximumWaiting: 4, stallLimit: .seconds(2))
        fill(&rule, [bob, cy], count: 4)
        var clock = 0.0
        for round in 0..<100 {
            // Bob takes everything at once; Cy takes one line every 1.9 s: slow, not stopped.
            while rule.waiting[bob, default: 0] > 0 { rule.took(from: bob, now: at(clock)) }
            clock += 1.9
            #expect(rule.admit(to: cy, now: at(clock)) != .dropped, "round \(round)")
            rule.took(from: cy, now: at(clock))
            #expect(rule.admit(to: cy, now: at(clock)) == .queued, "round \(round)")
            #expect(rule.admit(to: bob, now: at(clock)) == .queued, "round \(round)")
        }
    }

    @Test func aDroppedPeerThatTakesALineAgainIsQueuedAgain() {
        var rule = ChatQueueRule(maximumWaiting: 2, stallLimit: .seconds(2))
        fill(&rule, [bob, cy], count: 2)
        for _ in 0..<2 { rule.took(from: bob, now: at(0)) }
        #expect(rule.admit(to: cy, now: at(3)) == .dropped)
        rule.took(from: cy, now: at(4))
        #expect(rule.admit(to: cy, now: at(4)) == .queued)
        // Full again, but it has just taken a line: it waits for the stall limit again.
        #expect(rule.admit(to: cy, now: at(4)) == .wait(recheckAt: at(6)))
    }

    @Test func twoStoppedPeersAreBothDroppedWhileAThirdKeepsUp() {
        var rule = ChatQueueRule(maximumWaiting: 2, stallLimit: .seconds(2))
        fill(&rule, [bob, cy, dee], count: 2)
        for _ in 0..<2 { rule.took(from: dee, now: at(1)) }
        #expect(rule.admit(to: bob, now: at(3)) == .dropped)
        #expect(rule.admit(to: cy, now: at(3)) == .dropped)
        #expect(rule.admit(to: dee, now: at(3)) == .queued)
    }

    @Test func aPeerThatLeftStartsAgainWithAnEmptyQueue() {
        var rule = ChatQueueRule(maximumWaiting: 1)
        _ = rule.admit(to: bob, now: at(0))
        rule.remove(bob)
        #expect(rule.waiting[bob] == nil)
        #expect(rule.admit(to: bob, now: at(0)) == .queued)
    }
}
