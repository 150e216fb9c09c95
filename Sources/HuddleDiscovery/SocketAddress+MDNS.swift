import HuddleDNS
import HuddleMDNSCore
import NIOCore

#if canImport(Glibc)
import CNIOLinux
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SocketAddress {
    /// The mDNS group of a family (RFC 6762 §3: 224.0.0.251 and ff02::fb, port 5353).
    static func mdnsGroup(_ family: MDNSFamily) -> SocketAddress {
        switch family {
        case .v4: try! SocketAddress(ipAddress: "224.0.0.251", port: Int(mdnsPort))
        case .v6: try! SocketAddress(ipAddress: "ff02::fb", port: Int(mdnsPort))
        }
    }

    /// The address and port as the mDNS machines see them.
    var mdnsEndpoint: MDNSEndpoint? {
        switch self {
        case .v4(let address):
            let v4 = HuddleDNS.IPv4Address(rawValue: UInt32(bigEndian: address.address.sin_addr.s_addr))
            return MDNSEndpoint(address: .v4(v4), port: UInt16(bigEndian: address.address.sin_port))
        case .v6(let address):
            let bytes = withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
            guard let v6 = HuddleDNS.IPv6Address(bytes: bytes) else { return nil }
            // An IPv4-mapped source (::ffff:a.b.c.d) would mean a dual-stack socket; ours are IPv6-only.
            return MDNSEndpoint(address: .v6(v6), port: UInt16(bigEndian: address.address.sin6_port))
        default:
            return nil
        }
    }

    /// The IPv6 scope (interface index), or nil for an IPv4 address.
    var ipv6ScopeID: UInt32? {
        if case .v6(let address) = self { return address.address.sin6_scope_id }
        return nil
    }

    /// Whether this is one of the mDNS multicast groups.
    var isMDNSGroup: Bool {
        switch self {
        case .v4(let address): return UInt32(bigEndian: address.address.sin_addr.s_addr) == 0xE000_00FB
        case .v6(let address):
            let bytes = withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
            return bytes == [0xFF, 0x02] + [UInt8](repeating: 0, count: 13) + [0xFB]
        default: return false
        }
    }

    /// A socket address for an endpoint; IPv6 link-local addresses get the interface as their scope.
    init(_ endpoint: MDNSEndpoint, interfaceIndex: Int) {
        switch endpoint.address {
        case .v4(let v4):
            var raw = sockaddr_in()
            raw.sin_family = sa_family_t(AF_INET)
            raw.sin_port = endpoint.port.bigEndian
            raw.sin_addr.s_addr = v4.rawValue.bigEndian
            self = SocketAddress(raw, host: v4.description)
        case .v6(let v6):
            var raw = sockaddr_in6()
            raw.sin6_family = sa_family_t(AF_INET6)
            raw.sin6_port = endpoint.port.bigEndian
            withUnsafeMutableBytes(of: &raw.sin6_addr) { buffer in
                for (index, byte) in v6.bytes.enumerated() { buffer[index] = byte }
            }
            raw.sin6_scope_id = v6.isLinkLocal ? UInt32(interfaceIndex) : 0
            self = SocketAddress(raw, host: v6.description)
        }
    }
}
