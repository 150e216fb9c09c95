import HuddleForeign
import HuddleKDEConnectWire
import HuddleWire

/// The devices KDE Connect heard from or linked with, and the rules of who holds a device ID (docs/kdeconnect.md,
/// "Links"): a value without I/O. `Link` is what carries a device's packets (the service's channel), `Waiter` what
/// waits for a device's answer to pair; the service closes, resumes and emits what the table's answers say. Links
/// are told apart by `identify` (a channel's object identity).
struct KDEConnectDevices<Link, Waiter> {
    /// One device heard from or linked with.
    struct Device {
        var identity: KDEConnectIdentity
        var host: String
        var link: Link?
        var certificate: KDEConnectCertificate?
        var pairing = KDEConnectPairing(paired: false)
        var pairWaiters: [Waiter] = []
    }

    /// What taking a link did, for the service to carry out.
    struct LinkOutcome {
        let decision: KDEConnectLinkRule.Decision
        /// The record that holds the ID, when the link was refused (its name is the one the user knows).
        var holder: Device?
        /// The link the new one replaced, to close.
        var replaced: Link?
        /// The record the new certificate replaced, when something was pending for it.
        var ended: Device?
        /// Waits for the replaced record's pairing answer: they end unpaired.
        var waiters: [Waiter] = []
        /// The certificate (DER) of the replaced record: what it offered is dropped.
        var endedCertificate: [UInt8]?
    }

    let limits: KDEConnectLimits
    let identify: @Sendable (Link) -> ObjectIdentifier
    private(set) var devices: [String: Device] = [:]
    /// Devices dialled and not yet linked (or failed).
    private(set) var dialling: Set<String> = []
    /// When the dials of the last second started: at most 10 a second, whatever floods of announcements say.
    private var recentDials = RateWindow<String, ContinuousClock.Instant>(limit: 10)

    init(limits: KDEConnectLimits, identify: @escaping @Sendable (Link) -> ObjectIdentifier) {
        self.limits = limits
        self.identify = identify
    }

    /// Whether `link` is `other` (nil is no link).
    func isSame(_ link: Link?, _ other: Link) -> Bool {
        link.map { identify($0) == identify(other) } ?? false
    }

    /// Whether an announcement of `deviceId` heard at `now` is dialled: not when it is linked or being dialled
    /// already, when ``KDEConnectLimits/maximumPendingLinks`` dials are pending, or when 10 began in the last
    /// second. A dial that may go is counted.
    mutating func mayDial(_ deviceId: String, at now: ContinuousClock.Instant) -> Bool {
        guard devices[deviceId]?.link == nil, !dialling.contains(deviceId) else { return false }
        guard dialling.count < limits.maximumPendingLinks, recentDials.allows("", after: now - .seconds(1)) else {
            return false
        }
        dialling.insert(deviceId)
        recentDials.record("", at: now)
        return true
    }

    /// The dial of `deviceId` failed.
    mutating func dialFailed(_ deviceId: String) {
        dialling.remove(deviceId)
    }

    /// A link proved `certificate` for `identity` at `host`: it becomes the device's link unless
    /// ``KDEConnectLinkRule`` refuses it. A certificate other than the record's ends what was pending for the
    /// record (its pairing starts again from `isPinned`); a full table gives up a record without a link.
    mutating func link(
        _ link: Link,
        identity: KDEConnectIdentity,
        host: String,
        certificate: KDEConnectCertificate,
        isPinned: Bool
    ) -> LinkOutcome {
        dialling.remove(identity.deviceId)
        let held = devices[identity.deviceId]
        let decision = KDEConnectLinkRule.decide(
            holder: held.flatMap { device in
                device.certificate.map {
                    .init(
                        fingerprint: $0.fingerprint,
                        isPaired: device.pairing.state == .paired,
                        isLinked: device.link != nil
                    )
                }
            },
            fingerprint: certificate.fingerprint,
            tableHasRoom: devices.count < limits.maximumDevices || devices.contains { $0.value.link == nil }
        )
        guard case .take(_, let endsPending) = decision else { return LinkOutcome(decision: decision, holder: held) }
        var outcome = LinkOutcome(decision: decision)
        var device = held ?? Device(identity: identity, host: host)
        if endsPending, let old = held {
            if old.pairing.state != .unpaired || !old.pairWaiters.isEmpty { outcome.ended = old }
            outcome.waiters = old.pairWaiters
            outcome.endedCertificate = old.certificate?.der
            device.pairWaiters = []
        }
        outcome.replaced = isSame(device.link, link) ? nil : device.link
        device.identity = identity
        device.host = host
        device.link = link
        device.certificate = certificate
        if endsPending || device.pairing.state == .unpaired {
            device.pairing = KDEConnectPairing(paired: isPinned)
        }
        if held == nil, devices.count >= limits.maximumDevices,
            let idle = devices.first(where: { $0.value.link == nil })?.key
        {
            devices[idle] = nil
        }
        devices[identity.deviceId] = device
        return outcome
    }

    /// `link` ended: its device keeps its record without a link, and the waits for its pairing answer end.
    mutating func closed(_ link: Link) -> [Waiter] {
        var waiters: [Waiter] = []
        for (id, device) in devices where isSame(device.link, link) {
            devices[id]?.link = nil
            waiters += device.pairWaiters
            devices[id]?.pairWaiters = []
        }
        return waiters
    }

    /// The record of `peer` while it still holds the certificate `peer` was found with (N1 in
    /// docs/threat-model.md): what a user decided for one device never goes to another that claims its ID.
    func device(_ peer: ForeignPeer) -> Device? {
        guard let device = devices[peer.id.value], let fingerprint = peer.fingerprint?.uppercased(),
            device.certificate?.fingerprint == fingerprint
        else { return nil }
        return device
    }

    /// The device whose link `link` is now.
    func device(on link: Link) -> Device? {
        devices.values.first { isSame($0.link, link) }
    }

    var hasLinks: Bool { devices.values.contains { $0.link != nil } }

    /// Keeps `device` as its ID's record (after its pairing rules moved).
    mutating func update(_ device: Device) {
        devices[device.identity.deviceId] = device
    }

    /// The waits for `deviceId`'s pairing answer, which end now.
    mutating func takeWaiters(of deviceId: String) -> [Waiter] {
        defer { devices[deviceId]?.pairWaiters = [] }
        return devices[deviceId]?.pairWaiters ?? []
    }

    /// The service stops: every link to close and every wait to end.
    mutating func endAll() -> (links: [Link], waiters: [Waiter]) {
        defer { for id in devices.keys { devices[id]?.pairWaiters = [] } }
        return (devices.values.compactMap(\.link), devices.values.flatMap(\.pairWaiters))
    }
}

extension KDEConnectDevices: Sendable where Link: Sendable, Waiter: Sendable {}
extension KDEConnectDevices.Device: Sendable where Link: Sendable, Waiter: Sendable {}
