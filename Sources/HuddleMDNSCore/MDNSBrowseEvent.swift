public import HuddleDNS

/// An address of a resolved service with the interface it was learned on (RFC 6762 §14, §20): an IPv6
/// link-local address is only usable with that interface.
public struct MDNSScopedAddress: Hashable, Sendable, Comparable {
    public var address: MDNSAddress
    public var interfaceIndex: Int

    public init(address: MDNSAddress, interfaceIndex: Int) {
        self.address = address
        self.interfaceIndex = interfaceIndex
    }

    /// Whether the address needs its interface to be used (IPv6 link-local).
    public var needsScope: Bool {
        if case .v6(let v6) = self.address { return v6.isLinkLocal }
        return false
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        switch (lhs.address, rhs.address) {
        case (.v4(let a), .v4(let b)): a < b
        case (.v6(let a), .v6(let b)): a < b
        case (.v4, .v6): true
        case (.v6, .v4): false
        }
    }
}

/// A service instance found by browsing and resolved to a host, port, addresses and TXT (RFC 6763 §4–§6).
public struct MDNSResolvedService: Hashable, Sendable {
    /// The full instance name, `<instance>.<type>.local.`.
    public var fullName: DNSName
    /// The instance label, e.g. `My Printer`.
    public var instanceName: String { self.fullName.firstLabel }
    /// The service type labels, e.g. `_ipp._tcp`.
    public var type: String {
        self.fullName.labels.dropFirst().dropLast().map { String(decoding: $0, as: UTF8.self) }.joined(separator: ".")
    }
    /// The domain, `local`.
    public var domain: String { self.fullName.labels.last.map { String(decoding: $0, as: UTF8.self) } ?? "" }
    /// The SRV target host.
    public var host: DNSName
    public var port: UInt16
    public var txt: MDNSTXTRecord
    /// The host's addresses, sorted, IPv4 first.
    public var addresses: [MDNSScopedAddress]
    /// The interface the service was first seen on.
    public var interfaceIndex: Int
}

/// What browsing reports.
public enum MDNSBrowseEvent: Hashable, Sendable {
    /// An instance was found and resolved.
    case added(MDNSResolvedService)
    /// A resolved instance changed: port, TXT, host or addresses.
    case updated(MDNSResolvedService)
    /// An instance went away: goodbye, expiry, or a flushed record.
    case removed(DNSName)
    /// A service type was found by service-type enumeration (RFC 6763 §9).
    case typeFound(DNSName)
    /// A service type is no longer advertised.
    case typeLost(DNSName)
}
