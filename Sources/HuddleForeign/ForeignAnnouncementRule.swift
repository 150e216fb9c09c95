public import HuddleDNS
public import HuddleMDNSCore

/// Which announcement datagrams a foreign protocol heeds at all (docs/threat-model.md, "Foreign peers").
///
/// LocalSend announces to a link-local group (224.0.0.167) and KDE Connect to the broadcast address: a real
/// announcement never crosses a router, so its source is on the subnet of the interface it came in on. Heeding a
/// datagram makes this device connect to its source (LocalSend's `POST /register`, a KDE Connect link), so a
/// datagram from anywhere else, spoofed or routed, would turn the device into a tool to reach, and probe, hosts
/// of the attacker's choosing. The rule is the source check of RFC 6762 §11, applied to these protocols:
///
/// - it came in on an interface the command uses (`--interface`, `--deny-interface`);
/// - its source is on one of that interface's subnets;
/// - with a ``group``, it was sent to the group: a datagram sent to this host's own address (unicast) is not an
///   announcement, whoever sent it.
///
/// The rule sees plain values only; ``ForeignAnnouncementFilter`` takes them from the socket (`IP_PKTINFO`).
public struct ForeignAnnouncementRule: Sendable {
    /// What the rule says of one datagram.
    public enum Verdict: Hashable, Sendable {
        case heed
        /// Sent to another destination than the group: to this host's address, say.
        case notToGroup
        /// Came in on an interface the command does not use.
        case otherInterface
        /// From a source outside the subnets of the interface it came in on (or not IPv4).
        case offLink
        /// The socket did not say where the datagram was sent and which interface it came in on: nothing to check,
        /// so it is not heeded.
        case unknownArrival
    }

    /// The interfaces the command uses, with their IPv4 subnets.
    public var interfaces: [MDNSInterface]
    /// The destination announcements are sent to (LocalSend's group); nil: any (KDE Connect's broadcast, which
    /// devices also send to a known address).
    public var group: IPv4Address?

    public init(interfaces: [MDNSInterface], group: IPv4Address?) {
        self.interfaces = interfaces
        self.group = group
    }

    /// - Parameters:
    ///   - source: the datagram's source address (nil when it is not IPv4).
    ///   - destination: the address it was sent to, from the packet info.
    ///   - interfaceIndex: the interface it came in on, from the packet info.
    public func verdict(source: IPv4Address?, destination: IPv4Address?, interfaceIndex: Int?) -> Verdict {
        guard let destination, let interfaceIndex else { return .unknownArrival }
        if let group, destination != group { return .notToGroup }
        let arrivedOn = interfaces.filter { $0.index == interfaceIndex }
        guard !arrivedOn.isEmpty else { return .otherInterface }
        guard let source, arrivedOn.contains(where: { $0.isOnLink(.v4(source)) }) else { return .offLink }
        return .heed
    }
}
