public import Huddle
public import HuddleBase
public import HuddleClipboard
public import HuddleWire

/// What `config.toml` sets for `huddle daemon` (docs/daemon.md, "Configuration"): everything a flag sets, and the
/// accept rules. A flag given on the command line wins over the file.
public struct DaemonSettings: Decodable, Equatable, Sendable {
    /// The accept rules for groups of senders.
    public struct Accept: Decodable, Equatable, Sendable {
        public var paired: AcceptRule?
        public var others: AcceptRule?
    }

    /// One device's own settings, by its device ID or certificate fingerprint.
    public struct Device: Decodable, Equatable, Sendable {
        public var accept: AcceptRule?
        /// This device's bandwidth limit each way (``ByteRate``'s spelling), a Huddle device's only.
        public var limitRate: String?

        enum CodingKeys: String, CodingKey {
            case accept
            case limitRate = "limit-rate"
        }
    }

    public var name: String?
    /// Where received files go (`~/` is the home folder).
    public var dir: String?
    public var session: String?
    public var port: Int?
    /// Addresses to look for peers at, as `--peer` takes them.
    public var peer: [String]?
    /// `KEY=VALUE` entries to advertise beside the name, as `--lobby` takes them.
    public var lobby: [String]?
    public var localsend: Bool?
    public var kdeconnect: Bool?
    public var accept: Accept?
    public var devices: [String: Device]?
    /// Whether the web page is served (docs/web.md); by default it is.
    public var ui: Bool?
    /// The page's port on 127.0.0.1 (`ui-port`); by default a free one, new at each start.
    public var uiPort: Int?
    /// The bandwidth limit on transfers each way, as `--limit-rate` takes it (`limit-rate`).
    public var limitRate: String?
    /// Whether questions are shown as desktop notifications (docs/notifications.md); by default they are.
    public var notifications: Bool?
    /// Whether the page for a phone listens on the LAN (`phone-page`, docs/daemon.md, "A phone's page"); by
    /// default it does, refusing every request until a code is shown.
    public var phonePage: Bool?
    /// Whether the daemon keeps this machine's clipboard in step with paired machines, as `huddle clip sync` does
    /// (`clip-sync`, docs/daemon.md, "The clipboard"); by default it does not.
    public var clipSync: Bool?
    /// The kinds of clipboard data synced, as `clip sync --types` takes them (`clip-types`).
    public var clipTypes: String?
    /// The largest clipboard item synced, as `clip sync --max-size` takes it (`clip-max-size`).
    public var clipMaxSize: String?

    enum CodingKeys: String, CodingKey {
        case name, dir, session, port, peer, lobby, localsend, kdeconnect, accept, devices, ui, notifications
        case uiPort = "ui-port"
        case limitRate = "limit-rate"
        case phonePage = "phone-page"
        case clipSync = "clip-sync"
        case clipTypes = "clip-types"
        case clipMaxSize = "clip-max-size"
    }

    public init() {}

    /// `peers` and `lobby` as the flags gave them, each taken from the file when the flags gave none.
    public func lists(over flags: (peers: [String], lobby: [String])) -> (peers: [String], lobby: [String]) {
        (flags.peers.isEmpty ? peer ?? [] : flags.peers, flags.lobby.isEmpty ? lobby ?? [] : flags.lobby)
    }

    /// The accept rules the file sets, over the defaults (``AcceptPolicy``).
    public var policy: AcceptPolicy {
        var policy = AcceptPolicy()
        if let paired = accept?.paired { policy.paired = paired }
        if let others = accept?.others { policy.others = others }
        for (device, settings) in devices ?? [:] {
            if let rule = settings.accept { policy.perDevice[Self.deviceKey(device)] = rule }
        }
        return policy
    }

    /// The devices' own bandwidth limits (checked when the file was read: ``DaemonSettingsFile/parse(_:file:)``).
    public var rates: [DeviceID: ByteRate] {
        var rates: [DeviceID: ByteRate] = [:]
        for (device, settings) in devices ?? [:] {
            if let text = settings.limitRate, let id = try? DeviceID(device), let rate = ByteRate(parsing: text) {
                rates[id] = rate
            }
        }
        return rates
    }

    /// Sets the devices' own limits in `limits`: Huddle devices' for the session, foreign devices' for the
    /// protocols beside it (``TransferRateLimits/perForeignDevice``).
    public func limit(_ limits: inout TransferRateLimits) {
        (limits.perDevice, limits.perForeignDevice) = (rates, foreignRates)
    }

    /// The foreign devices' own bandwidth limits, by certificate fingerprint in upper-case hex (``TransferPacers``).
    public var foreignRates: [String: ByteRate] {
        var rates: [String: ByteRate] = [:]
        for (device, settings) in devices ?? [:] where Self.isFingerprint(device) {
            if let text = settings.limitRate, let rate = ByteRate(parsing: text) { rates[device.uppercased()] = rate }
        }
        return rates
    }

    /// Whether `text` is a certificate fingerprint as LocalSend and KDE Connect devices are known by: SHA-256 as
    /// 64 hex digits, either case.
    static func isFingerprint(_ text: String) -> Bool {
        text.utf8.count == 64 && text.allSatisfy(\.isHexDigit)
    }

    /// What clipboard sync lets through (checked when the file was read: ``DaemonSettingsFile/parse(_:file:)``).
    public var clipFilter: ClipboardItemFilter {
        ClipboardItemFilter(
            kinds: clipTypes.flatMap { try? ClipboardItemFilter.kinds(parsing: $0) }
                ?? Set(ClipboardItemFilter.Kind.allCases),
            maximumBytes: clipMaxSize.flatMap(ClipboardItemFilter.cap(parsing:))
                ?? ClipboardItemFilter.defaultMaximumBytes
        )
    }

    /// `dir` with a leading `~/` made the home folder of `environment` (`HOME`).
    public func directory(environment: [String: String]) -> String? {
        guard let dir, dir == "~" || dir.hasPrefix("~/"), let home = environment["HOME"], home.hasPrefix("/") else {
            return dir
        }
        return home + dir.dropFirst()
    }

    /// A device ID as the trust store writes it (`ABCDEFG-…`, upper case) or a fingerprint (upper-case hex):
    /// upper case, so that the file may use either case.
    static func deviceKey(_ text: String) -> String { text.uppercased() }
}
