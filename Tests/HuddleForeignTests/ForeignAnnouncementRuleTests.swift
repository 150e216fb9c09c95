import HuddleDNS
import HuddleForeign
import HuddleMDNSCore
import Testing

/// Which announcement datagrams a foreign protocol heeds: sent to its group (when it has one), in on a used
/// interface, from a source on that interface's subnets (docs/threat-model.md, "Foreign peers").
@Suite struct ForeignAnnouncementRuleTests {
    static let group = IPv4Address(224, 0, 0, 167)
    static let lan = MDNSInterface(
        index: 2,
        name: "eth0",
        ipv4: [MDNSPrefix(IPv4Address(192, 168, 1, 10), length: 24)],
        ipv6: []
    )
    static let wifi = MDNSInterface(
        index: 3,
        name: "wlan0",
        ipv4: [MDNSPrefix(IPv4Address(10, 0, 0, 5), length: 16)],
        ipv6: []
    )
    static let localSend = ForeignAnnouncementRule(interfaces: [lan, wifi], group: group)
    static let kdeConnect = ForeignAnnouncementRule(interfaces: [lan, wifi], group: nil)

    @Test func anAnnouncementToTheGroupFromANeighbourOnTheInterfaceItCameInOnIsHeeded() {
        let neighbour = IPv4Address(192, 168, 1, 20)
        #expect(Self.localSend.verdict(source: neighbour, destination: Self.group, interfaceIndex: 2) == .heed)
        let other = IPv4Address(10, 0, 200, 1)
        #expect(Self.localSend.verdict(source: other, destination: Self.group, interfaceIndex: 3) == .heed)
    }

    @Test func aDatagramSentToThisHostsAddressIsNotAnAnnouncementWhoeverSentIt() {
        let neighbour = IPv4Address(192, 168, 1, 20)
        let own = IPv4Address(192, 168, 1, 10)
        #expect(Self.localSend.verdict(source: neighbour, destination: own, interfaceIndex: 2) == .notToGroup)
        let broadcast = IPv4Address(255, 255, 255, 255)
        #expect(Self.localSend.verdict(source: neighbour, destination: broadcast, interfaceIndex: 2) == .notToGroup)
    }

    @Test func aSourceOffTheLinkItCameInOnIsDroppedEvenWhenItIsAnotherInterfacesNeighbour() {
        let routed = IPv4Address(172, 16, 0, 9)
        #expect(Self.localSend.verdict(source: routed, destination: Self.group, interfaceIndex: 2) == .offLink)
        // On wlan0's subnet, but it came in on eth0: spoofed, or routed.
        let wifiNeighbour = IPv4Address(10, 0, 3, 3)
        #expect(Self.localSend.verdict(source: wifiNeighbour, destination: Self.group, interfaceIndex: 2) == .offLink)
        // Not IPv4 at all.
        #expect(Self.localSend.verdict(source: nil, destination: Self.group, interfaceIndex: 2) == .offLink)
    }

    @Test func anInterfaceTheCommandDoesNotUseIsNotListenedTo() {
        let neighbour = IPv4Address(192, 168, 1, 20)
        #expect(
            Self.localSend.verdict(source: neighbour, destination: Self.group, interfaceIndex: 7) == .otherInterface
        )
        let onlyWifi = ForeignAnnouncementRule(interfaces: [Self.wifi], group: Self.group)
        #expect(onlyWifi.verdict(source: neighbour, destination: Self.group, interfaceIndex: 2) == .otherInterface)
    }

    @Test func withoutPacketInfoNothingCanBeCheckedSoNothingIsHeeded() {
        let neighbour = IPv4Address(192, 168, 1, 20)
        #expect(Self.localSend.verdict(source: neighbour, destination: nil, interfaceIndex: 2) == .unknownArrival)
        #expect(
            Self.kdeConnect.verdict(source: neighbour, destination: Self.group, interfaceIndex: nil) == .unknownArrival
        )
    }

    @Test func withoutAGroupAnyDestinationIsTakenButTheSourceMustStillBeOnTheLink() {
        let neighbour = IPv4Address(192, 168, 1, 20)
        let broadcast = IPv4Address(255, 255, 255, 255)
        let own = IPv4Address(192, 168, 1, 10)
        #expect(Self.kdeConnect.verdict(source: neighbour, destination: broadcast, interfaceIndex: 2) == .heed)
        #expect(Self.kdeConnect.verdict(source: neighbour, destination: own, interfaceIndex: 2) == .heed)
        let routed = IPv4Address(8, 8, 8, 8)
        #expect(Self.kdeConnect.verdict(source: routed, destination: own, interfaceIndex: 2) == .offLink)
        #expect(
            Self.kdeConnect.verdict(source: neighbour, destination: broadcast, interfaceIndex: 9) == .otherInterface
        )
    }
}
