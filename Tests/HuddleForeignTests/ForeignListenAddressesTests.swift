import HuddleForeign
import Testing

/// Where the foreign protocols' servers listen: everywhere, unless `--interface` names interfaces, then only on
/// their IPv4 addresses (docs/threat-model.md, "Foreign peers").
@Suite struct ForeignListenAddressesTests {
    static let host: [(interface: String, address: String)] = [
        ("lo", "127.0.0.1"), ("eth0", "192.168.1.10"), ("wlan0", "10.0.0.5"), ("eth0", "192.168.7.1"),
        ("docker0", "172.17.0.1"),
    ]

    @Test func withoutInterfacesNamedEveryAddressListens() {
        let addresses = ForeignListenAddresses.addresses(allowInterfaces: [], denyInterfaces: ["eth0"], of: Self.host)
        #expect(addresses == ["0.0.0.0"])
    }

    @Test func theNamedInterfacesListenOnTheirAddressesOnly() {
        let one = ForeignListenAddresses.addresses(allowInterfaces: ["eth0"], denyInterfaces: [], of: Self.host)
        #expect(one == ["192.168.1.10", "192.168.7.1"])
        let two = ForeignListenAddresses.addresses(
            allowInterfaces: ["wlan0", "eth0"],
            denyInterfaces: ["eth0"],
            of: Self.host
        )
        #expect(two == ["10.0.0.5"])
    }

    @Test func anInterfaceWithoutAnIPv4AddressGivesNothingToListenOn() {
        let none = ForeignListenAddresses.addresses(allowInterfaces: ["wg0"], denyInterfaces: [], of: Self.host)
        #expect(none.isEmpty)
    }
}
