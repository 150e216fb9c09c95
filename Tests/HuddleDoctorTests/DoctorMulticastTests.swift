import HuddleDNS
import HuddleDiscovery
import HuddleMDNSCore
import Testing

@testable import HuddleDoctor

/// The pieces around the multicast check: responses grouped by device, the neighbour and route tables that hint at
/// client isolation, the owners of port 5353, and the command line.
@Suite("huddle doctor: multicast answers and the system's tables")
struct DoctorMulticastTests {
    static let b4 = MDNSAddress.v4(IPv4Address(10, 0, 0, 2))
    static let b6 = MDNSAddress.v6(IPv6Address("fe80::b")!)
    static let c4 = MDNSAddress.v4(IPv4Address(10, 0, 0, 3))
    static let own = MDNSAddress.v4(IPv4Address(10, 0, 0, 1))

    static func response(
        _ source: MDNSAddress,
        family: MDNSFamily,
        advertising: [MDNSAddress] = []
    ) -> MDNSMulticastProbe.Response {
        MDNSMulticastProbe.Response(interfaceIndex: 2, family: family, source: source, advertisedAddresses: advertising)
    }

    @Test("an IPv4 and an IPv6 answer carrying the same A and AAAA records are one device; this host is marked")
    func grouping() {
        let responses = [
            Self.response(Self.b4, family: .v4, advertising: [Self.b4, Self.b6]),
            Self.response(Self.c4, family: .v4),
            Self.response(Self.own, family: .v4),
            Self.response(Self.b6, family: .v6),
            Self.response(Self.c4, family: .v4),
        ]
        let devices = InterfaceAnswers.responders(responses, ownAddresses: [Self.own])
        #expect(devices.map(\.sources) == [[Self.b4, Self.b6], [Self.c4], [Self.own]])
        #expect(devices.map(\.isThisHost) == [false, false, true])
    }

    @Test("only a response with records counts; A and AAAA records give the responder's addresses (RFC 6762 §6.2)")
    func responseFromMessage() throws {
        let link = MDNSLink(interfaceIndex: 2, family: .v4)
        let query = DNSMessage.query([DNSQuestion(name: dnssdServicesName, type: .ptr)])
        #expect(MDNSMulticastProbe.Response.from(query, source: Self.b4, link: link) == nil)
        #expect(MDNSMulticastProbe.Response.from(.response(answers: []), source: Self.b4, link: link) == nil)
        let answer = DNSMessage.response(
            answers: [DNSRecord(name: dnssdServicesName, data: .ptr("_typingtogether._tcp.local"), ttl: 4500)],
            additionals: [
                DNSRecord(name: "bee.local", data: .a(IPv4Address(10, 0, 0, 2)), ttl: 120),
                DNSRecord(name: "bee.local", data: .aaaa(IPv6Address("fe80::b")!), ttl: 120),
            ]
        )
        let response = try #require(MDNSMulticastProbe.Response.from(answer, source: Self.b4, link: link))
        #expect(response.advertisedAddresses == [Self.b4, Self.b6])
        #expect(response.interfaceIndex == 2)
    }

    @Test("neighbours come from ip neigh (resolved ones only) or /proc/net/arp; default routes from /proc")
    func linkTables() {
        let neigh = """
            192.168.1.1 dev wlan0 lladdr 52:54:00:12:35:02 REACHABLE
            192.168.1.9 dev wlan0  FAILED
            192.168.1.8 dev wlan0 INCOMPLETE
            fe80::1 dev wlan0 lladdr 52:54:00:12:35:02 router STALE
            10.0.0.7 dev eth0 lladdr 02:00:00:00:00:07 DELAY
            """
        #expect(
            LinkEvidence.neighbours(ipNeighShow: neigh) == ["wlan0": ["192.168.1.1", "fe80::1"], "eth0": ["10.0.0.7"]]
        )
        let arp = """
            IP address       HW type     Flags       HW address            Mask     Device
            192.168.1.1      0x1         0x2         52:54:00:12:35:02     *        wlan0
            192.168.1.9      0x1         0x0         00:00:00:00:00:00     *        wlan0
            """
        #expect(LinkEvidence.neighbours(procNetARP: arp) == ["wlan0": ["192.168.1.1"]])
        let route = """
            Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
            wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0
            wlan0\t0001A8C0\t00000000\t0001\t0\t0\t600\t00FFFFFF\t0\t0\t0
            """
        #expect(LinkEvidence.defaultRoutes(procNetRoute: route) == ["wlan0"])
        let zeros = String(repeating: "0", count: 32)
        let route6 = """
            \(zeros) 00 \(zeros) 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003 eth0
            \(zeros) 00 \(zeros) 00 \(zeros) ffffffff 00000001 00000000 00200200 lo
            fe800000000000000000000000000000 40 \(zeros) 00 \(zeros) 00000100 00000001 00000000 00000001 eth0
            """
        #expect(LinkEvidence.defaultRoutes(procNetIPv6Route: route6) == ["eth0"])
    }

    @Test("the owners of port 5353 are the processes whose descriptors link to its sockets")
    func portHolders() {
        #expect(PortHolders.socketInode(linkTarget: "socket:[4101]") == 4101)
        #expect(PortHolders.socketInode(linkTarget: "pipe:[4101]") == nil)
        let holders = PortHolders.holders(
            of: [4101, 4102, 4103],
            processes: [(700, "huddle", [9]), (412, "avahi-daemon", [4101, 4102, 55])]
        )
        #expect(holders.holders == [PortHolders.Holder(pid: 412, name: "avahi-daemon")])
        #expect(holders.socketCount == 3)
        #expect(holders.unownedSockets == 1)
    }
}
