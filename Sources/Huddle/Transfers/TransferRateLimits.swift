public import HuddleBase
public import HuddleWire
import NIOConcurrencyHelpers

/// Bandwidth limits on transfer data (docs/design.md, "Bandwidth limits"): one for all sends together, one for
/// all receives together, and one per device for each way; a chunk waits for every limit that applies. Only the
/// files' and data's bytes count — messages, chat and datagrams are never held back.
public struct TransferRateLimits: Hashable, Sendable {
    /// All transfers sent, together.
    public var sending: ByteRate?
    /// All transfers received, together.
    public var receiving: ByteRate?
    /// One device's transfers each way (its sends and its receives each paced to this), by device ID.
    public var perDevice: [DeviceID: ByteRate] = [:]

    public init(sending: ByteRate? = nil, receiving: ByteRate? = nil, perDevice: [DeviceID: ByteRate] = [:]) {
        self.sending = sending
        self.receiving = receiving
        self.perDevice = perDevice
    }

    /// Whether no limit is set.
    public var isEmpty: Bool { sending == nil && receiving == nil && perDevice.isEmpty }
}

/// The pacers of a session's ``TransferRateLimits``: one per total and one per device and way, made when first
/// needed. Pure apart from its lock: the caller passes the time and waits (a sender sleeps; a receiver stops
/// reading from the connection until then).
final class TransferPacing: Sendable {
    enum Way: Hashable, Sendable {
        case sending
        case receiving
    }

    struct State {
        var totals: [Way: RatePacer] = [:]
        var devices: [Way: [DeviceID: RatePacer]] = [:]
    }

    let limits: TransferRateLimits
    private let state: NIOLockedValueBox<State>

    init(_ limits: TransferRateLimits) {
        self.limits = limits
        var state = State()
        if let rate = limits.sending { state.totals[.sending] = RatePacer(rate: rate) }
        if let rate = limits.receiving { state.totals[.receiving] = RatePacer(rate: rate) }
        self.state = NIOLockedValueBox(state)
    }

    /// Counts `bytes` of transfer data going `way`, to or from `device`, at `now`.
    /// - Returns: nil when they may go now, else when (the later of every limit that applies).
    func admit(
        _ bytes: Int,
        _ way: Way,
        device: DeviceID?,
        now: ContinuousClock.Instant
    ) -> ContinuousClock.Instant? {
        guard !limits.isEmpty else { return nil }
        return state.withLockedValue { state in
            var waits: [ContinuousClock.Instant] = []
            if let wait = state.totals[way]?.admit(bytes, now: now) { waits.append(wait) }
            if let device, let rate = limits.perDevice[device] {
                var pacer = state.devices[way]?[device] ?? RatePacer(rate: rate)
                if let wait = pacer.admit(bytes, now: now) { waits.append(wait) }
                state.devices[way, default: [:]][device] = pacer
            }
            return waits.max()
        }
    }
}
