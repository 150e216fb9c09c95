import HuddleTransport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// The schedule of one direct address, on plain instants: when to introduce, what is found and lost, which
/// failures are told.
@Suite("Direct address schedule")
struct DirectAddressScheduleTests {
    let start = ContinuousClock.Instant.now
    let refused = PeerSessionError.connection(.connectFailed("127.0.0.1:47474: connection refused"))
    let timedOut = PeerSessionError.connection(.tlsHandshakeTimedOut)

    static func advert(_ instance: String, name: String = "Bob") throws -> PeerAdvert {
        PeerAdvert(
            serviceType: "_typingtogether._tcp",
            peer: PeerID(rawValue: instance),
            displayName: name,
            deviceID: try DeviceID(bytes: Array(repeating: 7, count: 32)),
            mode: .peer,
            port: 47474,
            addresses: [try SocketAddress(ipAddress: "10.1.2.3", port: 47474)]
        )
    }

    /// Whether the schedule asks for an introduction (a mutating call, outside `#expect`).
    static func asks(
        _ schedule: inout DirectAddressSchedule,
        now: ContinuousClock.Instant,
        connected: Bool,
        disconnectedAt: ContinuousClock.Instant? = nil
    ) -> Bool {
        schedule.shouldIntroduce(now: now, peer: .init(connected: connected, disconnectedAt: disconnectedAt))
    }

    @Test func failuresWaitLongerEachTimeUpToTheLongestRetry() {
        let schedule = DirectAddressSchedule()
        let waits = (1...8).map { schedule.retryDelay(after: $0) }
        #expect(waits == [1, 2, 4, 8, 16, 30, 30, 30].map { Duration.seconds($0) })
    }

    @Test func theFirstIntroductionIsAtOnceAndTheNextAfterTheRetryDelay() {
        var schedule = DirectAddressSchedule()
        #expect(Self.asks(&schedule, now: start, connected: false))
        let step = schedule.failed(refused, now: start)
        #expect(step == .init(sightings: [], report: refused))
        #expect(!Self.asks(&schedule, now: start + .milliseconds(999), connected: false))
        #expect(Self.asks(&schedule, now: start + .seconds(1), connected: false))
        _ = schedule.failed(refused, now: start + .seconds(1))
        #expect(!Self.asks(&schedule, now: start + .milliseconds(2999), connected: false))
        #expect(Self.asks(&schedule, now: start + .seconds(3), connected: false))
    }

    @Test func aFailureIsToldOnceUntilItsReasonChangesOrThePeerAnswered() throws {
        var schedule = DirectAddressSchedule()
        let reports = [refused, refused, timedOut, refused].map { schedule.failed($0, now: start).report }
        #expect(reports == [refused, nil, timedOut, refused])
        _ = schedule.introduced(try Self.advert("bob1"), now: start)
        let afterAnswer = schedule.failed(refused, now: start)
        #expect(afterAnswer.report == refused)
    }

    @Test func thePeerThatAnswersIsFoundOnceAndLostAfterThreeFailuresInARow() throws {
        var schedule = DirectAddressSchedule()
        let bob = try Self.advert("bob1")
        var sightings = (0..<2).map { _ in schedule.introduced(bob, now: start).sightings }
        sightings += (0..<3).map { _ in schedule.failed(refused, now: start).sightings }
        #expect(sightings == [[.found(bob)], [], [], [], [.lost(bob.peer)]])
        #expect(schedule.found == nil)
        let again = schedule.introduced(bob, now: start)
        #expect(again.sightings == [.found(bob)])
    }

    @Test func aRestartedPeerReplacesItsOldInstanceAndARenamedOneIsFoundAgain() throws {
        var schedule = DirectAddressSchedule()
        let (old, new) = (try Self.advert("bob1"), try Self.advert("bob2"))
        let renamed = try Self.advert("bob2", name: "Robert")
        let sightings = [old, new, renamed].map { schedule.introduced($0, now: start).sightings }
        #expect(sightings == [[.found(old)], [.lost(old.peer), .found(new)], [.found(renamed)]])
    }

    @Test func aConnectedPeerIsLeftAloneAndLookedAtAgainAsSoonAsItsConnectionEnds() throws {
        var schedule = DirectAddressSchedule()
        _ = schedule.introduced(try Self.advert("bob1"), now: start)
        let later = start + .seconds(3600)
        #expect(!Self.asks(&schedule, now: later, connected: true))
        // A connection that ended before the last introduction is old news: the recheck waits its interval.
        #expect(!Self.asks(&schedule, now: start + .seconds(5), connected: false, disconnectedAt: start - .seconds(1)))
        let ended = start + .seconds(10)
        #expect(Self.asks(&schedule, now: ended, connected: false, disconnectedAt: ended))
        _ = schedule.introduced(try Self.advert("bob1"), now: ended + .seconds(1))
        #expect(!Self.asks(&schedule, now: ended + .seconds(30), connected: false, disconnectedAt: ended))
        #expect(Self.asks(&schedule, now: ended + .seconds(31), connected: false, disconnectedAt: ended))
    }

    @Test func withNothingFoundTheConnectionStatusDoesNotMatter() {
        var schedule = DirectAddressSchedule()
        _ = schedule.failed(refused, now: start)
        #expect(!Self.asks(&schedule, now: start, connected: false, disconnectedAt: start))
        #expect(Self.asks(&schedule, now: start + .seconds(1), connected: true))
    }
}
