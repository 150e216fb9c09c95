public import HuddleDNS

/// An IP address family, on which mDNS runs "ships in the night" (RFC 6762 §20).
public enum MDNSFamily: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case v4
    case v6

    public var description: String { self == .v4 ? "IPv4" : "IPv6" }
}

/// An IPv4 or IPv6 address.
public enum MDNSAddress: Hashable, Sendable, CustomStringConvertible {
    case v4(IPv4Address)
    case v6(IPv6Address)

    public var family: MDNSFamily {
        switch self {
        case .v4: .v4
        case .v6: .v6
        }
    }

    public var description: String {
        switch self {
        case .v4(let address): address.description
        case .v6(let address): address.description
        }
    }
}

/// A network interface as the mDNS machines see it: an index, a name and its addresses.
public struct MDNSInterface: Hashable, Sendable {
    public var index: Int
    public var name: String
    /// IPv4 addresses with their prefix lengths, for the on-link check of RFC 6762 §11.
    public var ipv4: [MDNSPrefix<IPv4Address>]
    /// IPv6 addresses with their prefix lengths, link-local ones included.
    public var ipv6: [MDNSPrefix<IPv6Address>]

    public init(index: Int, name: String, ipv4: [MDNSPrefix<IPv4Address>], ipv6: [MDNSPrefix<IPv6Address>]) {
        self.index = index
        self.name = name
        self.ipv4 = ipv4
        self.ipv6 = ipv6
    }

    /// Whether `address` is on one of this interface's subnets (RFC 6762 §11 source check).
    public func isOnLink(_ address: MDNSAddress) -> Bool {
        switch address {
        case .v4(let v4): self.ipv4.contains { $0.contains(v4) }
        case .v6(let v6): v6.isLinkLocal || self.ipv6.contains { $0.contains(v6) }
        }
    }

    /// Whether `address` is one of this interface's own.
    public func owns(_ address: MDNSAddress) -> Bool {
        switch address {
        case .v4(let v4): self.ipv4.contains { $0.address == v4 }
        case .v6(let v6): self.ipv6.contains { $0.address == v6 }
        }
    }
}

/// An address with a prefix length.
public struct MDNSPrefix<Address: Hashable & Sendable>: Hashable, Sendable {
    public var address: Address
    public var length: Int

    public init(_ address: Address, length: Int) {
        self.address = address
        self.length = length
    }
}

extension MDNSPrefix where Address == IPv4Address {
    func contains(_ other: IPv4Address) -> Bool {
        let bits = max(0, min(32, self.length))
        guard bits > 0 else { return true }
        let mask = UInt32.max << UInt32(32 - bits)
        return self.address.rawValue & mask == other.rawValue & mask
    }
}

extension MDNSPrefix where Address == IPv6Address {
    func contains(_ other: IPv6Address) -> Bool {
        var remaining = max(0, min(128, self.length))
        for index in 0..<16 where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if self.address.bytes[index] & mask != other.bytes[index] & mask { return false }
            remaining -= bits
        }
        return true
    }
}

/// One interface and one address family: the unit on which mDNS sends, receives and keeps state (RFC 6762 §14).
public struct MDNSLink: Hashable, Sendable, CustomStringConvertible {
    public var interfaceIndex: Int
    public var family: MDNSFamily

    public init(interfaceIndex: Int, family: MDNSFamily) {
        self.interfaceIndex = interfaceIndex
        self.family = family
    }

    public var description: String { "\(self.interfaceIndex)/\(self.family)" }
}

/// An address and a UDP port.
public struct MDNSEndpoint: Hashable, Sendable, CustomStringConvertible {
    public var address: MDNSAddress
    public var port: UInt16

    public init(address: MDNSAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    public var description: String { "\(self.address):\(self.port)" }
}

/// The mDNS port (RFC 6762 §3).
public let mdnsPort: UInt16 = 5353

/// A datagram received by the mDNS socket, with where it came from.
public struct MDNSIncoming: Sendable {
    public var message: DNSMessage
    public var source: MDNSEndpoint
    public var link: MDNSLink
    /// Whether it was sent to the multicast group (else to one of our unicast addresses).
    public var wasMulticast: Bool

    public init(message: DNSMessage, source: MDNSEndpoint, link: MDNSLink, wasMulticast: Bool) {
        self.message = message
        self.source = source
        self.link = link
        self.wasMulticast = wasMulticast
    }
}

/// A datagram the machines want sent.
public struct MDNSOutgoing: Sendable {
    /// Where to send it.
    public enum Destination: Hashable, Sendable {
        /// To the mDNS group of the link's family, out of the link's interface, from port 5353.
        case multicast(MDNSLink)
        /// To one endpoint, out of the link's interface.
        case unicast(MDNSEndpoint, MDNSLink)
    }

    public var message: DNSMessage
    public var destination: Destination
    /// Whether SRV targets may be compressed (not in legacy unicast replies, RFC 6762 §18.14).
    public var compressSRVTarget: Bool

    public init(message: DNSMessage, destination: Destination, compressSRVTarget: Bool = true) {
        self.message = message
        self.destination = destination
        self.compressSRVTarget = compressSRVTarget
    }

    /// The link this datagram leaves by.
    public var link: MDNSLink {
        switch self.destination {
        case .multicast(let link), .unicast(_, let link): link
        }
    }
}

/// A small, fast, seedable generator (SplitMix64), so every random delay is reproducible in tests.
public struct MDNSRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { self.state = seed }

    public mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Array {
    /// The elements, leaving the array empty: how the machines hand over what they queued for the caller.
    mutating func takeAll() -> [Element] {
        defer { self = [] }
        return self
    }
}
