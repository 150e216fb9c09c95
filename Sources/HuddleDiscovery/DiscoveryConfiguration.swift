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
        if self.denyInterfaces.contains(name) { return false }
        if !self.allowInterfaces.isEmpty { return self.allowInterfaces.contains(name) }
        if isLoopback || isPointToPoint { return false }
        return !Self.defaultDeniedPrefixes.contains { name.hasPrefix($0) }
    }
}
