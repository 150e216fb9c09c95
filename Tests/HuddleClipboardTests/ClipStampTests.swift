import HuddleClipboard
import Testing

@Suite("Hybrid logical clock stamps")
struct ClipStampTests {
    @Test func localTicksFollowTheWallClockAndNeverRunBackwards() {
        var clock = HybridLogicalClock(origin: "a")
        let first = clock.tick(now: 1000)
        #expect(first == ClipStamp(time: 1000, counter: 0, origin: "a"))
        let sameMillisecond = clock.tick(now: 1000)
        #expect(sameMillisecond == ClipStamp(time: 1000, counter: 1, origin: "a"))
        // The wall clock steps back (NTP): stamps still go up.
        let afterStepBack = clock.tick(now: 400)
        #expect(afterStepBack == ClipStamp(time: 1000, counter: 2, origin: "a"))
        #expect(first < sameMillisecond && sameMillisecond < afterStepBack)
        #expect(clock.tick(now: 2000) == ClipStamp(time: 2000, counter: 0, origin: "a"))
    }

    /// A machine whose wall clock is an hour behind still stamps a copy made after seeing another machine's item
    /// as newer than that item.
    @Test func aCopyAfterSeeingAnItemIsNewerHoweverSkewedTheClocks() {
        var ahead = HybridLogicalClock(origin: "ahead")
        var behind = HybridLogicalClock(origin: "behind")
        let theirs = ahead.tick(now: 10_000_000)
        behind.witness(theirs, now: 10_000_000 - 3_600_000)
        let mine = behind.tick(now: 10_000_000 - 3_600_000 + 5)
        #expect(mine > theirs)
        #expect(mine == ClipStamp(time: 10_000_000, counter: 2, origin: "behind"))
    }

    @Test func witnessTakesTheLargestOfTheThreeReadings() {
        var clock = HybridLogicalClock(origin: "a")
        _ = clock.tick(now: 500)
        clock.witness(ClipStamp(time: 500, counter: 7, origin: "b"), now: 100)
        #expect((clock.time, clock.counter) == (500, 8))
        clock.witness(ClipStamp(time: 900, counter: 3, origin: "b"), now: 100)
        #expect((clock.time, clock.counter) == (900, 4))
        clock.witness(ClipStamp(time: 100, counter: 3, origin: "b"), now: 950)
        #expect((clock.time, clock.counter) == (950, 0))
        clock.witness(ClipStamp(time: 10, counter: 3, origin: "b"), now: 20)
        #expect((clock.time, clock.counter) == (950, 1))
    }

    /// Counters above the limit are refused by every receiver, so the clock must never issue one: when the counter
    /// would pass the limit, the time moves on by a millisecond and the counter starts again at 0. Stamps keep going
    /// up all the same, whether the clock witnesses a stamp at the limit again and again or ticks while its wall
    /// clock stays behind.
    @Test func theCounterNeverPassesItsLimit() {
        let limit = ClipboardSyncCore.maximumCounter
        var clock = HybridLogicalClock(origin: "a")
        clock.witness(ClipStamp(time: 5000, counter: limit, origin: "m"), now: 1000)
        #expect((clock.time, clock.counter) == (5001, 0))
        var previous = ClipStamp(time: 5000, counter: limit, origin: "m")
        var highest: UInt32 = 0
        var ordered = true
        for round in 0..<1000 {
            let witnessed = ClipStamp(time: clock.time, counter: limit, origin: "m")
            clock.witness(witnessed, now: 1000 + UInt64(round))
            highest = max(highest, clock.counter)
            let stamp = clock.tick(now: 1000 + UInt64(round))
            highest = max(highest, stamp.counter)
            ordered = ordered && previous < witnessed && witnessed < stamp
            previous = stamp
        }
        #expect(highest <= limit)
        #expect(ordered)
        #expect((clock.time, clock.counter) == (5001 + 1000, 1))

        // Ticking up to the limit within one millisecond, then once more.
        var ticking = HybridLogicalClock(origin: "b")
        ticking.witness(ClipStamp(time: 9000, counter: limit - 2, origin: "m"), now: 10)
        #expect(ticking.tick(now: 10) == ClipStamp(time: 9000, counter: limit, origin: "b"))
        #expect(ticking.tick(now: 10) == ClipStamp(time: 9001, counter: 0, origin: "b"))
    }

    @Test func equalTimesAreOrderedByCounterThenOrigin() {
        let stamps = [
            ClipStamp(time: 5, counter: 1, origin: "b"),
            ClipStamp(time: 5, counter: 0, origin: "z"),
            ClipStamp(time: 4, counter: 9, origin: "z"),
            ClipStamp(time: 5, counter: 1, origin: "a"),
        ]
        #expect(stamps.sorted().map(\.description) == ["4.9@z", "5.0@z", "5.1@a", "5.1@b"])
    }
}
