import HuddleTestSupport
import Testing

@testable import HuddleDaemon

/// When a queued send is tried again (docs/daemon.md, "Outbox"), on a manual clock.
@Suite("Outbox schedule")
struct OutboxScheduleTests {
    typealias Instant = ManualClock.Instant
    let start = Instant(offset: .seconds(100))

    @Test("an entry is due once its device is found, and taken only once")
    func dueWhenFound() {
        var schedule = OutboxSchedule<Instant>()
        let taken1 = schedule.takeIfDue("a", now: start)
        #expect(!taken1)
        schedule.found("a", now: start)
        #expect(schedule.nextDue == start)
        let taken2 = schedule.takeIfDue("a", now: start)
        #expect(taken2)
        let taken3 = schedule.takeIfDue("a", now: start)
        #expect(!taken3)
        #expect(schedule.nextDue == nil)
    }

    @Test("a failed try waits 10 s, then 20 s, 40 s …, and never more than 300 s")
    func backOff() {
        #expect(
            (1...7).map { OutboxSchedule<Instant>.delay(afterFailures: $0) }
                == [
                    .seconds(10), .seconds(20), .seconds(40), .seconds(80), .seconds(160), .seconds(300), .seconds(300),
                ]
        )
        var schedule = OutboxSchedule<Instant>()
        schedule.found("a", now: start)
        let taken4 = schedule.takeIfDue("a", now: start)
        #expect(taken4)
        schedule.failed("a", now: start)
        // Found again at once: the back-off still holds.
        schedule.found("a", now: start.advanced(by: .seconds(1)))
        let taken5 = schedule.takeIfDue("a", now: start.advanced(by: .seconds(9)))
        #expect(!taken5)
        let taken6 = schedule.takeIfDue("a", now: start.advanced(by: .seconds(10)))
        #expect(taken6)
        schedule.failed("a", now: start.advanced(by: .seconds(10)))
        #expect(schedule.nextDue == start.advanced(by: .seconds(30)))
    }

    @Test("a delivered entry is forgotten: found again, it starts from no failures")
    func forget() {
        var schedule = OutboxSchedule<Instant>()
        schedule.found("a", now: start)
        _ = schedule.takeIfDue("a", now: start)
        schedule.failed("a", now: start)
        schedule.forget("a")
        #expect(schedule.nextDue == nil)
        schedule.found("a", now: start)
        let taken7 = schedule.takeIfDue("a", now: start)
        #expect(taken7)
        schedule.failed("a", now: start)
        #expect(schedule.nextDue == start.advanced(by: .seconds(10)))
    }
}
