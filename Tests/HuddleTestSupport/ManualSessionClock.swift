@_spi(Testing) public import Huddle

/// A session clock (`PeerSessionConfiguration.clock`) that moves only when a test moves it: the rules' `now`, the
/// reconnect schedule, the redelivery window, `connect` deadlines and waits, the pairing budget and transfer
/// decision deadlines all follow it. It starts at the monotonic clock's `now` when made.
public final class ManualSessionClock: Sendable {
    private let carrier: ManualSessionClockCarrier

    public init() {
        carrier = ManualSessionClockCarrier(base: .now, manual: ManualClock())
    }

    /// Makes a session read this clock. Its links send no PINGs of their own
    /// (``PeerSessionConfiguration/linkPingInterval``): their timer would be one more sleeper on the clock, which
    /// tests count.
    public func configure(_ configuration: inout PeerSessionConfiguration) {
        configuration.clock = carrier
        configuration.linkPingInterval = nil
    }

    public var now: ContinuousClock.Instant { carrier.now }

    /// Moves the clock forward, waking every timer whose deadline has come.
    public func advance(by duration: Duration) {
        carrier.manual.advance(by: duration)
    }

    /// The earliest deadline a timer waits for on this clock, if any.
    public var nextDeadline: ContinuousClock.Instant? {
        carrier.manual.nextDeadline.map { carrier.base + $0.offset }
    }

    /// How many timers wait on this clock now.
    public var sleeperCount: Int { carrier.manual.sleeperCount }

    /// Waits (on real time, up to `timeout`) until at least `count` timers wait on this clock.
    public func waitForSleepers(_ count: Int, within timeout: Duration = .seconds(30)) async -> Bool {
        await carrier.manual.waitForSleepers(count, within: timeout)
    }
}

/// The ``ManualSessionClock``'s side of the session's clock seam.
struct ManualSessionClockCarrier: SessionClock {
    let base: ContinuousClock.Instant
    let manual: ManualClock

    var now: ContinuousClock.Instant { base + manual.now.offset }

    func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await manual.sleep(until: ManualClock.Instant(offset: base.duration(to: deadline)))
    }
}
