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

    /// An interface with addresses, and why it is left out (nil when it is used).
    struct Surveyed: Sendable {
        var found: Found
        var exclusion: InterfaceExclusion?
    }

    func scan() throws -> [Found] {
        try self.survey().filter { $0.exclusion == nil }.map(\.found)
    }

    /// Every interface with an address, used or not; the rules are the ones ``scan()`` applies: multicast, up,
    /// then the allow and deny lists and the default filter (``DiscoveryConfiguration/exclusion(name:isLoopback:isPointToPoint:)``).
    func survey() throws -> [Surveyed] {
        var byIndex: [Int: Surveyed] = [:]
        for device in try System.enumerateDevices() where device.interfaceIndex > 0 {
            var entry =
                byIndex[device.interfaceIndex]
                ?? Surveyed(
                    found: Found(
                        interface: MDNSInterface(index: device.interfaceIndex, name: device.name, ipv4: [], ipv6: [])
                    ),
                    exclusion: self.exclusion(of: device)
                )
            switch device.address {
            case .v4(let address):
                let v4 = IPv4Address(rawValue: UInt32(bigEndian: address.address.sin_addr.s_addr))
                let prefix = device.netmask.map(Self.prefixLength) ?? 32
                entry.found.interface.ipv4.append(MDNSPrefix(v4, length: prefix))
                entry.found.ipv4Device = entry.found.ipv4Device ?? device
            case .v6(let address):
                let bytes = withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
                guard let v6 = IPv6Address(bytes: bytes) else { continue }
                let prefix = device.netmask.map(Self.prefixLength) ?? 128
                entry.found.interface.ipv6.append(MDNSPrefix(v6, length: prefix))
                entry.found.ipv6Device = entry.found.ipv6Device ?? device
            default:
                continue
            }
            byIndex[device.interfaceIndex] = entry
        }
        return byIndex.values.sorted { $0.found.interface.index < $1.found.interface.index }
    }

    /// The first rule that leaves a device's interface out: the configuration's lists and filter, then the link.
    private func exclusion(of device: NIONetworkDevice) -> InterfaceExclusion? {
        let flags = InterfaceFlags(name: device.name)
        let chosen = self.configuration.exclusion(
            name: device.name,
            isLoopback: flags.isLoopback || device.name == "lo",
            isPointToPoint: flags.isPointToPoint
        )
        if let chosen { return chosen }
        if !flags.isUp { return .down }
        return device.multicastSupported ? nil : .noMulticast
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
