import HuddleWire

/// The LocalSend devices heard from, bounded (docs/localsend.md, "Discovery"). Pure: time comes in as instants of
/// the caller's clock.
public struct LocalSendDevices: Sendable {
    /// A device and where it was heard.
    public struct Device: Sendable, Hashable {
        public var info: LocalSendDeviceInfo
        /// The IP address its messages came from (not anything it claims).
        public var host: String
        public var lastHeard: ContinuousClock.Instant

        public init(info: LocalSendDeviceInfo, host: String, lastHeard: ContinuousClock.Instant) {
            self.info = info
            self.host = host
            self.lastHeard = lastHeard
        }

        /// The port its API listens on (53317 when it does not say).
        public var port: Int { info.port ?? 53317 }
        public var isHTTPS: Bool { info.protocol != "http" }
        /// Its fingerprint as a key: uppercase.
        public var key: String { info.fingerprint.uppercased() }
    }

    /// What hearing a message changed.
    public enum Heard: Sendable, Hashable {
        /// Our own message, or one from a device at the bound and not new.
        case ignored
        case new(Device)
        case changed(Device)
        case same(Device)
        /// A claim that would lower an HTTPS device to plain HTTP: refused, the entry kept as it is.
        case kept(Device)
        /// An unproven claim that an HTTPS device now answers at another address: the entry stays where it is
        /// until a connection pinned to its fingerprint reaches it at the new one (then heard again as proven).
        case moveClaimed(Device, to: Device)
    }

    public let ownFingerprint: String
    public let limits: LocalSendLimits
    public private(set) var devices: [String: Device] = [:]
    var answered: RateWindow<String, ContinuousClock.Instant>
    /// Answers of the last second, to every device (one key).
    var lastSecond: RateWindow<String, ContinuousClock.Instant>

    public init(ownFingerprint: String, limits: LocalSendLimits = .init()) {
        self.ownFingerprint = ownFingerprint.uppercased()
        self.limits = limits
        self.answered = RateWindow(limit: limits.registerAnswersPerMinute)
        self.lastSecond = RateWindow(limit: limits.registerAnswersPerSecond)
    }

    /// Records `info`, heard from `host` at `now`. Beyond ``LocalSendLimits/maximumDevices`` the device heard from
    /// least recently makes room (the answers it got still count, see ``mayAnswer(_:at:)``).
    ///
    /// Anyone can claim any fingerprint (a multicast message, a `/register`), so a claim never lowers an HTTPS
    /// entry to plain HTTP (``Heard/kept(_:)``), and moves an HTTPS entry to another address only when `proven`:
    /// the message came over a TLS connection that showed the fingerprint's certificate (otherwise
    /// ``Heard/moveClaimed(_:to:)``).
    public mutating func heard(
        _ info: LocalSendDeviceInfo,
        from host: String,
        at now: ContinuousClock.Instant,
        proven: Bool = false
    ) -> Heard {
        let key = info.fingerprint.uppercased()
        guard key != ownFingerprint, !key.isEmpty else { return .ignored }
        var stored = info.withoutAnnounce
        stored.fingerprint = key
        let device = Device(info: stored, host: host, lastHeard: now)
        if let old = devices[key] {
            if old.isHTTPS && !device.isHTTPS { return .kept(old) }
            if old.isHTTPS && old.host != host && !proven { return .moveClaimed(old, to: device) }
            devices[key] = device
            let unchanged = old.info == device.info && old.host == host
            return unchanged ? .same(device) : .changed(device)
        }
        if devices.count >= limits.maximumDevices,
            let oldest = devices.min(by: { $0.value.lastHeard < $1.value.lastHeard })?.key
        {
            devices[oldest] = nil
        }
        devices[key] = device
        return .new(device)
    }

    /// Whether to answer an announcement from the device `fingerprint` now: at most
    /// ``LocalSendLimits/registerAnswersPerMinute`` a minute each and ``LocalSendLimits/registerAnswersPerSecond``
    /// a second in all, so a flood of announcements costs little. A device's answers count for their minute even
    /// when it is forgotten and heard again meanwhile; in return, answers go to at most
    /// ``LocalSendLimits/maximumDevices`` devices a minute, which bounds what is kept.
    public mutating func mayAnswer(_ fingerprint: String, at now: ContinuousClock.Instant) -> Bool {
        guard lastSecond.allows("", after: now - .seconds(1)) else { return false }
        let key = fingerprint.uppercased()
        guard answered.allows(key, after: now - .seconds(60)) else { return false }
        if !answered.contains(key), answered.keyCount >= limits.maximumDevices {
            answered.forget(before: now - .seconds(60))
            guard answered.keyCount < limits.maximumDevices else { return false }
        }
        answered.record(key, at: now)
        lastSecond.record("", at: now)
        return true
    }

    /// The device with this fingerprint (either case).
    public func device(_ fingerprint: String) -> Device? { devices[fingerprint.uppercased()] }
}
