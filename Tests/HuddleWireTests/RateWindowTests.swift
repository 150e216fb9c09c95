import HuddleWire
import Testing

/// "At most N in any window", per key, on the caller's clock.
@Suite("Rate window")
struct RateWindowTests {
    @Test("a key gets its limit in any window; an event counts until the window has passed it")
    func limitPerKey() {
        var window = RateWindow<String, Double>(limit: 2)
        let first = window.allows("a", after: 0 - 60)
        window.record("a", at: 0)
        window.record("a", at: 30)
        let full = window.allows("a", after: 59.9 - 60)
        let other = window.allows("b", after: 59.9 - 60)
        let afterStart = window.allows("a", after: 60 - 60)
        let counted = window.count("a", after: 60 - 60)
        let later = window.count("a", after: 90 - 60)
        #expect(first)
        #expect(!full, "two in the last minute")
        #expect(other, "another key has its own count")
        #expect(afterStart, "the event at 0 is at the window's start: no longer counted")
        #expect(counted == 1)
        #expect(later == 0)
        #expect(!window.contains("a"), "a key with nothing recent is forgotten")
    }

    @Test("forgetting keeps exactly the keys with a recent event")
    func forget() {
        var window = RateWindow<Int, Duration>(limit: 5)
        window.record(1, at: .seconds(1))
        window.record(2, at: .seconds(10))
        window.record(3, at: .seconds(20))
        #expect(window.keyCount == 3)
        window.forget(before: .seconds(10))
        #expect(window.keyCount == 1)
        #expect(window.contains(3) && !window.contains(2) && !window.contains(1))
    }
}
