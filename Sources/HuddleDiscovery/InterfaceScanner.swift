import HuddleDNS
import HuddleMDNSCore
import NIOCore
import NIOPosix

#if canImport(Glibc)
import CNIOLinux
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lists the interfaces discovery should use, with their addresses (RFC 6762 §14: every multicast-capable
/// interface, each joined and served on its own).
struct InterfaceScanner: Sendable {
    var configuration: DiscoveryConfiguration

    /// A usable interface and the NIO devices (one per address) needed to join groups on it.
    struct Found: Sendable {
        var interface: MDNSInterface
        var ipv4Device: NIONetworkDevice?
        var ipv6Device: NIONetworkDevice?
    }

    func scan() throws -> [Found] {
        var byIndex: [Int: Found] = [:]
        for device in try System.enumerateDevices() {
            guard device.multicastSupported, device.interfaceIndex > 0 else { continue }
            let flags = InterfaceFlags(name: device.name)
            guard flags.isUp else { continue }
            guard
                self.configuration.admits(
                    name: device.name,
                    isLoopback: flags.isLoopback || device.name == "lo",
                    isPointToPoint: flags.isPointToPoint
                )
            else { continue }
            var found =
                byIndex[device.interfaceIndex]
                ?? Found(interface: MDNSInterface(index: device.interfaceIndex, name: device.name, ipv4: [], ipv6: []))
            switch device.address {
            case .v4(let address):
                let v4 = IPv4Address(rawValue: UInt32(bigEndian: address.address.sin_addr.s_addr))
                let prefix = device.netmask.map(Self.prefixLength) ?? 32
                found.interface.ipv4.append(MDNSPrefix(v4, length: prefix))
                found.ipv4Device = found.ipv4Device ?? device
            case .v6(let address):
                let bytes = withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
                guard let v6 = IPv6Address(bytes: bytes) else { continue }
                let prefix = device.netmask.map(Self.prefixLength) ?? 128
                found.interface.ipv6.append(MDNSPrefix(v6, length: prefix))
                found.ipv6Device = found.ipv6Device ?? device
            default:
                continue
            }
            byIndex[device.interfaceIndex] = found
        }
        return byIndex.values.sorted { $0.interface.index < $1.interface.index }
    }

    /// The number of leading one bits of a netmask.
    static func prefixLength(_ netmask: SocketAddress) -> Int {
        switch netmask {
        case .v4(let mask): return UInt32(bigEndian: mask.address.sin_addr.s_addr).nonzeroBitCount
        case .v6(let mask):
            return withUnsafeBytes(of: mask.address.sin6_addr) { $0.reduce(0) { $0 + $1.nonzeroBitCount } }
        default: return 0
        }
    }
}
