public import HuddleBase
public import HuddleWire

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
    /// A LocalSend or KDE Connect device's own limit each way, by certificate fingerprint (upper-case hex): not the
    /// session's, but in the pacers it hands to the foreign protocols beside it (``PeerSession/transferPacers``).
    public var perForeignDevice: [String: ByteRate] = [:]

    public init(sending: ByteRate? = nil, receiving: ByteRate? = nil, perDevice: [DeviceID: ByteRate] = [:]) {
        self.sending = sending
        self.receiving = receiving
        self.perDevice = perDevice
    }

    /// Whether no limit on the session's own transfers is set.
    public var isEmpty: Bool { sending == nil && receiving == nil && perDevice.isEmpty }
}

/// The pacers of a session's ``TransferRateLimits``: one per total and one per device and way, made when first
/// needed. Pure apart from its lock: the caller passes the time and waits (a sender sleeps; a receiver stops
/// reading from the connection until then).
final class TransferPacing: Sendable {
    typealias Way = TransferPacers.Way

    let limits: TransferRateLimits
    /// The pacers, which the foreign protocols beside the session share (``PeerSession/transferPacers``): the
    /// totals, and each device's own — a Huddle device's by its device ID, a foreign device's by its fingerprint.
    let totals: TransferPacers

    init(_ limits: TransferRateLimits) {
        self.limits = limits
        var totals = TransferPacers(sending: limits.sending, receiving: limits.receiving)
        totals.perDevice = limits.perForeignDevice
        for (device, rate) in limits.perDevice { totals.perDevice[device.description] = rate }
        self.totals = totals
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
        return totals.admit(bytes, way, device: device?.description, now: now)
    }
}
