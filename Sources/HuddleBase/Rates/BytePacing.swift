import NIOConcurrencyHelpers

/// One ``RatePacer`` shared by every transfer it paces, with the wait (docs/design.md, "Bandwidth limits"): the
/// LocalSend and KDE Connect transfers of one way share one, so together they stay within the limit. A transfer
/// counts each chunk before it goes (a sender) or after it came (a receiver, which reads on only when the wait is
/// over, so the other side is held back by TCP).
public final class BytePacing: Sendable {
    public let rate: ByteRate
    private let pacer: NIOLockedValueBox<RatePacer>

    public init(rate: ByteRate) {
        self.rate = rate
        pacer = NIOLockedValueBox(RatePacer(rate: rate))
    }

    /// Counts `bytes` about to go at `now` (``RatePacer/admit(_:now:)``): nil when they may go now, else when.
    public func admit(_ bytes: Int, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        pacer.withLockedValue { $0.admit(bytes, now: now) }
    }

    /// Counts `bytes` and sleeps until they may go.
    /// - Throws: `CancellationError` when the task is cancelled while it waits.
    public func pace(_ bytes: Int) async throws {
        guard let until = admit(bytes, now: .now) else { return }
        try await Task.sleep(until: until, clock: .continuous)
    }
}

/// The pacers of one bandwidth limit each way (nil: that way is not limited), and of each foreign device's own
/// limit. A session paces its own transfers' totals with the totals and hands them to the foreign protocols
/// started beside it, so that Huddle, LocalSend and KDE Connect transfers together stay within one limit.
public struct TransferPacers: Sendable {
    /// Which way bytes go.
    public enum Way: Hashable, Sendable {
        case sending
        case receiving
    }

    public var sending: BytePacing?
    public var receiving: BytePacing?
    /// A device's own limit each way, by its key in upper case: a foreign device's certificate fingerprint
    /// (`limit-rate` under `[devices."FINGERPRINT"]` in the daemon's config.toml), a Huddle device's device ID; its
    /// transfers wait for this and the total.
    public var perDevice: [String: ByteRate] = [:]
    private let devices = DevicePacers()

    /// One pacer each way at `rate`; none without a rate.
    public init(rate: ByteRate? = nil) {
        self.init(sending: rate, receiving: rate)
    }

    /// A pacer for each way that has a rate.
    public init(sending: ByteRate?, receiving: ByteRate?) {
        self.sending = sending.map(BytePacing.init(rate:))
        self.receiving = receiving.map(BytePacing.init(rate:))
    }

    /// Counts `bytes` going `way`, to or from the device of `fingerprint`, at `now`: nil when they may go now, else
    /// when (the later of the total's and the device's limits).
    public func admit(
        _ bytes: Int,
        _ way: Way,
        device fingerprint: String?,
        now: ContinuousClock.Instant
    ) -> ContinuousClock.Instant? {
        let total = (way == .sending ? sending : receiving)?.admit(bytes, now: now)
        guard let key = fingerprint?.uppercased(), let rate = perDevice[key] else { return total }
        let own = devices.pacing(key, way, rate: rate).admit(bytes, now: now)
        return [total, own].compactMap(\.self).max()
    }

    /// Counts `bytes` (``admit(_:_:device:now:)``) and sleeps until they may go.
    /// - Throws: `CancellationError` when the task is cancelled while it waits.
    public func pace(_ bytes: Int, _ way: Way, device fingerprint: String?) async throws {
        guard sending != nil || receiving != nil || !perDevice.isEmpty else { return }
        guard let until = admit(bytes, way, device: fingerprint, now: .now) else { return }
        try await Task.sleep(until: until, clock: .continuous)
    }
}

/// The per-device pacers of ``TransferPacers``, made when a device's first bytes go.
final class DevicePacers: Sendable {
    private let pacers = NIOLockedValueBox<[TransferPacers.Way: [String: BytePacing]]>([:])

    func pacing(_ device: String, _ way: TransferPacers.Way, rate: ByteRate) -> BytePacing {
        pacers.withLockedValue { pacers in
            if let pacing = pacers[way]?[device], pacing.rate == rate { return pacing }
            let pacing = BytePacing(rate: rate)
            pacers[way, default: [:]][device] = pacing
            return pacing
        }
    }
}
