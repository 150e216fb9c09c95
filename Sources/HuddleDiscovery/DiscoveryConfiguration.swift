public import HuddleMDNSCore

/// Which interfaces and families discovery uses, and the host label it announces.
public struct DiscoveryConfiguration: Sendable {
    /// Interface names to use; when not empty, only these (and they may be loopback or otherwise filtered).
    public var allowInterfaces: [String] = []
    /// Interface names never to use.
    public var denyInterfaces: [String] = []
    /// Address families to run on (RFC 6762 §20: IPv4 and IPv6 side by side).
    public var families: Set<MDNSFamily> = [.v4, .v6]
    /// The host label announced as `<label>.local`. Defaults to the machine's host name with `-huddle`
    /// appended, so Huddle never contends with the system's own responder for the machine's name.
    public var hostLabel: String?
    /// How often the interface list is checked for changes (RFC 6762 §8, §13: a new address is probed and
    /// announced again). Polling keeps this portable; 2 s bounds how stale an address can be.
    public var interfaceCheckInterval: Duration = .seconds(2)
    public var responder = MDNSResponderConfiguration()
    public var querier = MDNSQuerierConfiguration()

    /// Interface name prefixes skipped unless named in ``allowInterfaces``: container, VM, VPN and tunnel
    /// interfaces, whose addresses must not leak to the LAN (RFC 6762 §6.2, §14).
    public static let defaultDeniedPrefixes = [
        "docker", "br-", "veth", "virbr", "vnet", "cni", "flannel", "cali", "weave", "tun", "tap", "utun",
        "vmnet", "vboxnet", "zt", "tailscale", "wg", "lxc", "lxd", "podman",
    ]

    public init() {}

    /// Whether an interface passes the allow and deny lists and the default filter.
    public func admits(name: String, isLoopback: Bool, isPointToPoint: Bool) -> Bool {
        self.exclusion(name: name, isLoopback: isLoopback, isPointToPoint: isPointToPoint) == nil
    }

    /// Why the allow and deny lists or the default filter leave an interface out, or nil when they admit it.
    public func exclusion(name: String, isLoopback: Bool, isPointToPoint: Bool) -> InterfaceExclusion? {
        if self.denyInterfaces.contains(name) { return .denied }
        if !self.allowInterfaces.isEmpty { return self.allowInterfaces.contains(name) ? nil : .notAllowed }
        if isLoopback { return .loopback }
        if isPointToPoint { return .pointToPoint }
        return Self.defaultDeniedPrefixes.first { name.hasPrefix($0) }.map { .virtualInterface(prefix: $0) }
    }
}

/// Why discovery does not use an interface: what `huddle doctor` reports for each one left out.
public enum InterfaceExclusion: Hashable, Sendable {
    /// Named in ``DiscoveryConfiguration/denyInterfaces`` (`--deny-interface`).
    case denied
    /// ``DiscoveryConfiguration/allowInterfaces`` (`--interface`) names other interfaces only.
    case notAllowed
    /// The loopback interface: nothing on it reaches another device.
    case loopback
    /// A point-to-point link (a VPN, PPP): no neighbours to discover, and the LAN's names must not leak into it.
    case pointToPoint
    /// A container, VM, VPN or tunnel interface, by the prefix of its name
    /// (``DiscoveryConfiguration/defaultDeniedPrefixes``; RFC 6762 §14 serves each real link on its own).
    case virtualInterface(prefix: String)
    /// Administratively down, or its link is down.
    case down
    /// Without multicast (no `IFF_MULTICAST`), so mDNS cannot run on it (RFC 6762 §3).
    case noMulticast
    /// Without an IPv4 or IPv6 address, so nothing can be sent from it.
    case noAddress
}
