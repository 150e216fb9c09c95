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
