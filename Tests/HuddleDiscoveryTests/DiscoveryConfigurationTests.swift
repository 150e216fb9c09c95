import HuddleDNS
import HuddleMDNSCore
import NIOCore
import Testing

@testable import HuddleDiscovery

@Suite("Interface selection (RFC 6762 §6.2, §14; checklist F11)")
struct DiscoveryConfigurationTests {
    @Test("by default: Ethernet and Wi-Fi yes; loopback, point-to-point, containers, VMs and VPNs no")
    func defaultFilter() {
        let configuration = DiscoveryConfiguration()
        for name in ["eth0", "enp3s0", "wlan0", "wlp2s0", "en0"] {
            #expect(configuration.admits(name: name, isLoopback: false, isPointToPoint: false), "\(name)")
        }
        for name in ["docker0", "br-1234", "veth12ab", "virbr0", "tun0", "wg0", "tailscale0", "utun3", "vboxnet0"] {
            #expect(!configuration.admits(name: name, isLoopback: false, isPointToPoint: false), "\(name)")
        }
        #expect(!configuration.admits(name: "lo", isLoopback: true, isPointToPoint: false))
        #expect(!configuration.admits(name: "ppp0", isLoopback: false, isPointToPoint: true))
    }

    @Test("an allow list picks exactly those interfaces, even filtered ones; the deny list always wins")
    func allowAndDeny() {
        var configuration = DiscoveryConfiguration()
        configuration.allowInterfaces = ["veth-a", "lo"]
        #expect(configuration.admits(name: "veth-a", isLoopback: false, isPointToPoint: false))
        #expect(configuration.admits(name: "lo", isLoopback: true, isPointToPoint: false))
        #expect(!configuration.admits(name: "eth0", isLoopback: false, isPointToPoint: false))
        configuration.denyInterfaces = ["veth-a"]
        #expect(!configuration.admits(name: "veth-a", isLoopback: false, isPointToPoint: false))
        var denyOnly = DiscoveryConfiguration()
        denyOnly.denyInterfaces = ["eth1"]
        #expect(!denyOnly.admits(name: "eth1", isLoopback: false, isPointToPoint: false))
        #expect(denyOnly.admits(name: "eth0", isLoopback: false, isPointToPoint: false))
    }

    @Test("netmasks become prefix lengths")
    func prefixLengths() throws {
        #expect(InterfaceScanner.prefixLength(try SocketAddress(ipAddress: "255.255.255.0", port: 0)) == 24)
        #expect(InterfaceScanner.prefixLength(try SocketAddress(ipAddress: "255.255.0.0", port: 0)) == 16)
        #expect(InterfaceScanner.prefixLength(try SocketAddress(ipAddress: "ffff:ffff:ffff:ffff::", port: 0)) == 64)
    }

    @Test("the default host label is DNS-safe and ends in -huddle")
    func defaultHostLabel() {
        let label = MDNSEngine.defaultHostLabel()
        #expect(label.hasSuffix("-huddle"))
        #expect(label.utf8.count <= 63)
        #expect(label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
    }
}

@Suite("Socket addresses and the mDNS groups")
struct SocketAddressMDNSTests {
    @Test("the groups are 224.0.0.251 and ff02::fb on port 5353 (RFC 6762 §3)")
    func groups() {
        #expect(SocketAddress.mdnsGroup(.v4).ipAddress == "224.0.0.251")
        #expect(SocketAddress.mdnsGroup(.v6).ipAddress == "ff02::fb")
        #expect(SocketAddress.mdnsGroup(.v4).port == 5353)
        #expect(SocketAddress.mdnsGroup(.v4).isMDNSGroup)
        #expect(SocketAddress.mdnsGroup(.v6).isMDNSGroup)
        #expect(!(try! SocketAddress(ipAddress: "224.0.0.252", port: 5353)).isMDNSGroup)
    }

    @Test("endpoints convert both ways; IPv6 link-local addresses carry their interface")
    func endpoints() throws {
        let v4 = MDNSEndpoint(address: .v4(IPv4Address(10, 1, 2, 3)), port: 5353)
        let address = SocketAddress(v4, interfaceIndex: 7)
        #expect(address.ipAddress == "10.1.2.3")
        #expect(address.port == 5353)
        #expect(address.mdnsEndpoint == v4)
        let linkLocal = MDNSEndpoint(address: .v6(try #require(IPv6Address("fe80::1"))), port: 40_000)
        let scoped = SocketAddress(linkLocal, interfaceIndex: 7)
        #expect(scoped.ipv6ScopeID == 7)
        #expect(scoped.mdnsEndpoint == linkLocal)
        let global = SocketAddress(
            MDNSEndpoint(address: .v6(try #require(IPv6Address("fd00::5"))), port: 1),
            interfaceIndex: 7
        )
        #expect(global.ipv6ScopeID == 0)
    }
}
