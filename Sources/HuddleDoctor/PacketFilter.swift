import HuddleDNS
import HuddleMDNSCore

/// A packet arriving at this host, as the packet filter sees it: what `huddle doctor` asks each rule about.
struct FilterPacket: Hashable, Sendable {
    enum Transport: String, Sendable {
        case udp
        case tcp

        /// The IANA protocol number, as rules may name it.
        var number: Int { self == .udp ? 17 : 6 }
    }

    var transport: Transport
    var family: MDNSFamily
    var interfaceName: String
    var sourcePort: UInt16?
    /// Nil when unknown: a session listens on a random TCP port unless given `--port`.
    var destinationPort: UInt16?
    /// Nil when unknown (one of this host's own addresses).
    var destinationAddress: MDNSAddress?
    var isMulticast: Bool

    /// An mDNS answer from a peer: UDP from and to port 5353, sent to the group (RFC 6762 §3, §6). Conntrack sees
    /// it as new: it does not answer the query that went to the group from this host.
    static func mdns(family: MDNSFamily, interfaceName: String) -> FilterPacket {
        FilterPacket(
            transport: .udp,
            family: family,
            interfaceName: interfaceName,
            sourcePort: mdnsPort,
            destinationPort: mdnsPort,
            destinationAddress: family == .v4 ? .v4(IPv4Address(224, 0, 0, 251)) : .v6(mdnsIPv6Group),
            isMulticast: true
        )
    }

    /// The first packet of a peer's TCP connection to this host's session.
    static func sessionConnection(port: UInt16?, family: MDNSFamily, interfaceName: String) -> FilterPacket {
        FilterPacket(
            transport: .tcp,
            family: family,
            interfaceName: interfaceName,
            sourcePort: nil,
            destinationPort: port,
            destinationAddress: nil,
            isMulticast: false
        )
    }
}

/// `ff02::fb`, the IPv6 mDNS group (RFC 6762 §3).
let mdnsIPv6Group = IPv6Address(bytes: [0xFF, 0x02] + [UInt8](repeating: 0, count: 13) + [0xFB])!

/// Whether a condition holds for a packet: yes, no, or cannot tell (a source address, a rate limit, an
/// `iptables -m` match doctor does not read).
enum FilterTruth: Hashable, Sendable {
    case yes
    case no
    case unknown

    init(_ value: Bool) { self = value ? .yes : .no }

    var negated: FilterTruth {
        switch self {
        case .yes: .no
        case .no: .yes
        case .unknown: .unknown
        }
    }

    /// All of several conditions: no if any is no, else unknown if any is unknown.
    static func all(_ truths: [FilterTruth]) -> FilterTruth {
        if truths.contains(.no) { return .no }
        return truths.contains(.unknown) ? .unknown : .yes
    }
}

/// Port numbers as a rule names them: one, a list, ranges, or a comparison.
struct PortSet: Hashable, Sendable {
    var ranges: [ClosedRange<Int>]

    func contains(_ port: UInt16) -> Bool { self.ranges.contains { $0.contains(Int(port)) } }
}

/// What one part of a rule tests.
indirect enum FilterCondition: Hashable, Sendable {
    /// The transport protocol, by name (`udp`) or number (`17`).
    case transport(Set<String>)
    /// The destination port; with a transport (`udp dport`) it also requires that transport, without (`th dport`,
    /// `--dport` after `-p`) it does not.
    case destinationPort(PortSet, transport: FilterPacket.Transport?)
    case sourcePort(PortSet, transport: FilterPacket.Transport?)
    /// The input interface name; `*` (nftables) or `+` (iptables) at the end matches any rest.
    case inputInterface([String])
    /// Conntrack state: `new`, `established`, `related`, `invalid`, `untracked`.
    case connectionState(Set<String>)
    /// Conntrack status bits (`dnat`, `snat`, …): an incoming mDNS answer or connection has none of them.
    case connectionStatus(Set<String>)
    /// `multicast`, `broadcast`, `host`.
    case packetType(Set<String>)
    /// Addresses and prefixes (`224.0.0.251`, `10.0.0.0/8`); also requires the family.
    case destinationAddress([String], family: MDNSFamily)
    case family(MDNSFamily)
    case not(FilterCondition)
    /// Anything else, with how it reads.
    case unknown(String)

    func holds(for packet: FilterPacket) -> FilterTruth {
        switch self {
        case .transport(let names):
            return FilterTruth(
                names.contains(packet.transport.rawValue) || names.contains("\(packet.transport.number)")
            )
        case .destinationPort(let ports, let transport):
            return Self.port(packet.destinationPort, in: ports, transport: transport, packet: packet)
        case .sourcePort(let ports, let transport):
            return Self.port(packet.sourcePort, in: ports, transport: transport, packet: packet)
        case .inputInterface(let patterns):
            return FilterTruth(patterns.contains { Self.interface(packet.interfaceName, matches: $0) })
        case .connectionState(let states):
            return FilterTruth(states.contains("new"))
        case .connectionStatus:
            return .no
        case .packetType(let types):
            return FilterTruth(types.contains(packet.isMulticast ? "multicast" : "host"))
        case .destinationAddress(let patterns, let family):
            guard packet.family == family else { return .no }
            guard let address = packet.destinationAddress else { return .unknown }
            let truths = patterns.map { AddressPattern($0)?.contains(address) ?? .unknown }
            if truths.contains(.yes) { return .yes }
            return truths.contains(.unknown) ? .unknown : .no
        case .family(let family):
            return FilterTruth(packet.family == family)
        case .not(let condition):
            return condition.holds(for: packet).negated
        case .unknown:
            return .unknown
        }
    }

    /// Whether this condition names a port the packet goes to: what makes a drop rule about that traffic.
    func namesDestinationPort(of packet: FilterPacket) -> Bool {
        guard case .destinationPort = self else { return false }
        return packet.destinationPort != nil && self.holds(for: packet) == .yes
    }

    private static func port(
        _ port: UInt16?,
        in ports: PortSet,
        transport: FilterPacket.Transport?,
        packet: FilterPacket
    ) -> FilterTruth {
        if let transport, transport != packet.transport { return .no }
        guard let port else { return .unknown }
        return FilterTruth(ports.contains(port))
    }

    /// `eth*` (nftables) and `eth+` (iptables) match every name starting with `eth`.
    static func interface(_ name: String, matches pattern: String) -> Bool {
        if let last = pattern.last, last == "*" || last == "+" { return name.hasPrefix(pattern.dropLast()) }
        return name == pattern
    }
}

/// An address or a prefix, `224.0.0.251` or `ff00::/8`.
struct AddressPattern {
    var address: MDNSAddress
    var length: Int

    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let first = parts.first else { return nil }
        if let v4 = IPv4Address(first) {
            self.address = .v4(v4)
            self.length = 32
        } else if let v6 = IPv6Address(first) {
            self.address = .v6(v6)
            self.length = 128
        } else {
            return nil
        }
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...self.length).contains(length) else { return nil }
            self.length = length
        }
    }

    func contains(_ other: MDNSAddress) -> FilterTruth {
        switch (self.address, other) {
        case (.v4(let mine), .v4(let theirs)):
            FilterTruth(Self.prefix(mine.bytes, theirs.bytes, bits: self.length))
        case (.v6(let mine), .v6(let theirs)):
            FilterTruth(Self.prefix(mine.bytes, theirs.bytes, bits: self.length))
        default:
            .no
        }
    }

    private static func prefix(_ a: [UInt8], _ b: [UInt8], bits: Int) -> Bool {
        var remaining = bits
        for index in 0..<min(a.count, b.count) where remaining > 0 {
            let take = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - take))
            if a[index] & mask != b[index] & mask { return false }
            remaining -= take
        }
        return true
    }
}
