import Foundation
import HuddleTestSupport
import Testing

@Suite(.timeLimit(.minutes(1)))
struct EventRecorderTests {
    @Test func findsAnEventRecordedBeforeTheWait() async {
        let recorder = EventRecorder<Int>()
        recorder.record(1)
        recorder.record(7)
        #expect(await recorder.first(within: .seconds(5)) { $0 > 5 ? $0 : nil } == 7)
    }

    @Test func wakesWhenAMatchingEventArrivesLater() async {
        let recorder = EventRecorder<String>()
        let waiter = Task { await recorder.first(within: .seconds(30)) { $0.hasPrefix("b") ? $0 : nil } }
        recorder.record("apple")
        recorder.record("banana")
        #expect(await waiter.value == "banana")
    }

    @Test func givesUpAtTheDeadlineWhenNothingMatches() async {
        let recorder = EventRecorder<Int>()
        recorder.record(1)
        let started = ContinuousClock.now
        #expect(await recorder.first(within: .milliseconds(50)) { $0 == 2 ? true : nil } == nil)
        #expect(ContinuousClock.now - started >= .milliseconds(50))
    }

    @Test func clearHidesEarlierEventsFromLaterWaits() async {
        let recorder = EventRecorder<Int>()
        recorder.record(1)
        recorder.clear()
        #expect(recorder.events.isEmpty)
        #expect(await recorder.first(within: .milliseconds(20)) { $0 == 1 ? true : nil } == nil)
        recorder.record(1)
        #expect(await recorder.first(within: .seconds(5)) { $0 == 1 ? true : nil } == true)
    }

    @Test func clearingThroughAnEventWaitsForItAndKeepsOnlyWhatCameAfter() async {
        let recorder = EventRecorder<Int>()
        recorder.record(1)
        // The event to clear through is still on its way when the clear starts.
        let clearing = Task { await recorder.clear(within: .seconds(30)) { $0 == 2 } }
        recorder.record(5)
        recorder.record(2)
        #expect(await clearing.value)
        recorder.record(3)
        #expect(recorder.events == [3])
        // A later wait for the kind of event cleared through finds none of the earlier ones.
        #expect(await recorder.first(within: .milliseconds(20)) { $0 == 2 || $0 == 5 ? true : nil } == nil)
        // Nothing matches: nothing is forgotten.
        #expect(await recorder.clear(within: .milliseconds(20)) { $0 == 9 } == false)
        #expect(recorder.events == [3])
    }

    @Test func recordsASequenceUntilItEnds() async {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let recorder = EventRecorder(recording: stream)
        continuation.yield(3)
        continuation.yield(4)
        #expect(await recorder.count(atLeast: 2, within: .seconds(30)) { _ in true })
        continuation.finish()
        // An ended sequence brings no more events: the wait ends without waiting out its deadline.
        let started = ContinuousClock.now
        #expect(await recorder.first(within: .seconds(30)) { $0 == 5 ? true : nil } == nil)
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(recorder.events == [3, 4])
    }

    @Test func aCancelledWaitEndsAtOnce() async {
        let recorder = EventRecorder<Int>()
        let waiter = Task { await recorder.first(within: .seconds(300)) { $0 == 1 ? true : nil } }
        waiter.cancel()
        #expect(await waiter.value == nil)
    }
}

@Suite(.timeLimit(.minutes(1)))
struct ManualClockTests {
    @Test func sleepersWakeOnlyWhenTheClockPassesTheirDeadline() async throws {
        let clock = ManualClock()
        let woke = EventRecorder<Int>()
        let sleeper = Task {
            try await clock.sleep(until: clock.now.advanced(by: .seconds(10)))
            woke.record(1)
        }
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .seconds(9))
        #expect(woke.events.isEmpty)
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(woke.events == [1])
        #expect(clock.now.offset == .seconds(10))
    }

    @Test func aCancelledSleepThrows() async {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(1))) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}

@Suite struct TestScopeTests {
    @Test func itsDirectoriesAreRemovedAndItsCleanUpRunsAfterABodyThatThrows() async throws {
        struct Boom: Error {}
        let kept = EventRecorder<URL>()
        let cleanedUp = EventRecorder<Void>()
        await #expect(throws: Boom.self) {
            try await withTestScope { scope in
                let directory = try scope.directory()
                kept.record(directory)
                scope.onExit { cleanedUp.record(()) }
                try Data("x".utf8).write(to: directory.appendingPathComponent("file"))
                throw Boom()
            }
        }
        let directory = try #require(kept.events.first)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        #expect(cleanedUp.events.count == 1)
    }
}
