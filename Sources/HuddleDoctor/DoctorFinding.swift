/// One thing `huddle doctor` found, with what to do about it.
struct DoctorFinding: Hashable, Sendable {
    enum Severity: String, Hashable, Sendable, Comparable {
        /// Peers cannot be found while this stands.
        case error
        /// Peers may not be found; or something doctor could not judge for sure.
        case warning
        /// Worth knowing; nothing to fix.
        case info

        /// Whether it makes `huddle doctor` exit with ``ExitCode/problemsFound``.
        var isProblem: Bool { self != .info }

        private var rank: Int {
            switch self {
            case .error: 0
            case .warning: 1
            case .info: 2
            }
        }

        static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    /// A stable name for scripts, e.g. `firewall-drops-mdns` (``Code``).
    var code: String
    var severity: Severity
    var message: String
    /// A command or step that fixes it; nil when there is nothing to fix.
    var fix: String?
    /// The packet filter rule or chain the finding is about.
    var rule: RuleDescription?
    /// The interfaces it is about, if it is about some.
    var interfaces: [String]

    init(
        _ code: String,
        _ severity: Severity,
        _ message: String,
        fix: String? = nil,
        rule: RuleDescription? = nil,
        interfaces: [String] = []
    ) {
        self.code = code
        self.severity = severity
        self.message = message
        self.fix = fix
        self.rule = rule
        self.interfaces = interfaces
    }

    /// The finding codes, stable across releases: scripts match on them.
    enum Code {
        static let noUsableInterface = "no-usable-interface"
        static let interfacesUnreadable = "interfaces-unreadable"
        static let mdnsPortUnavailable = "mdns-port-unavailable"
        static let firewallDropsMDNS = "firewall-drops-mdns"
        static let firewallPolicyDropsMDNS = "firewall-policy-drops-mdns"
        static let firewallDropsSessionPort = "firewall-drops-session-port"
        static let firewallPolicyDropsSessionPort = "firewall-policy-drops-session-port"
        static let firewallMayBlockSessionPort = "firewall-may-block-session-port"
        static let firewallDropsSessionDatagramPort = "firewall-drops-session-datagram-port"
        static let firewallPolicyDropsSessionDatagramPort = "firewall-policy-drops-session-datagram-port"
        static let firewallUnreadable = "firewall-unreadable"
        static let otherResponder = "other-responder"
        static let noMDNSAnswers = "no-mdns-answers"
        static let clientIsolationSuspected = "client-isolation-suspected"
        static let onlyThisHostAnswered = "only-this-host-answered"
    }
}

/// A packet filter rule, or a chain when its policy is the finding, as `huddle doctor` names it.
/// Encoded as it is in `huddle doctor --json` (a finding's `rule`).
struct RuleDescription: Hashable, Sendable, Encodable {
    /// `nftables`, `iptables` or `ip6tables`.
    var tool: String
    /// The nftables family (`inet`, `ip`, `ip6`); `ip` or `ip6` for iptables.
    var family: String
    var table: String
    var chain: String
    /// The nftables handle or the iptables rule number; nil when the chain's policy is meant.
    var handle: Int?
    /// The rule as the tool prints it, or the chain's policy (`policy drop`).
    var text: String

    /// `table inet hdtest, chain input, handle 2: udp dport 5353 drop`, or with `rule 2` for iptables.
    var summary: String {
        let place =
            self.tool == FilterSource.nftables.rawValue
            ? "table \(self.family) \(self.table), chain \(self.chain)"
            : "\(self.tool) table \(self.table), chain \(self.chain)"
        guard let handle else { return "\(place): \(self.text)" }
        let number = self.tool == FilterSource.nftables.rawValue ? "handle \(handle)" : "rule \(handle)"
        return self.text.isEmpty ? "\(place), \(number)" : "\(place), \(number): \(self.text)"
    }
}
