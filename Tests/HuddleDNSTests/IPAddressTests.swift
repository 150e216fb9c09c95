import HuddleDNS
import Testing

@Suite("IPv4Address")
struct IPv4AddressTests {
    @Test func parsesDottedQuad() throws {
        let address = try #require(IPv4Address("192.168.1.10"))
        #expect(address.rawValue == 0xC0A8_010A)
        #expect(address.bytes == [192, 168, 1, 10])
        #expect(address == IPv4Address(192, 168, 1, 10))
        #expect(address.description == "192.168.1.10")
        #expect(IPv4Address("0.0.0.0")?.rawValue == 0)
        #expect(IPv4Address("255.255.255.255")?.rawValue == 0xFFFF_FFFF)
        #expect(IPv4Address(Substring("10.0.0.1"))?.rawValue == 0x0A00_0001)
    }

    @Test(arguments: [
        "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.1000", "1..2.3", "1.2.3.", ".1.2.3", "a.b.c.d", " 1.2.3.4",
        "1.2.3.4 ", "+1.2.3.4", "1.2.3.-0", "1.2.3.+4", "0x1.2.3.4", "1.2.3.٤",
    ])
    func rejectsBadText(text: String) {
        #expect(IPv4Address(text) == nil)
    }

    @Test func linkLocalAndOrdering() {
        #expect(IPv4Address(169, 254, 3, 4).isLinkLocal)
        #expect(!IPv4Address(169, 253, 3, 4).isLinkLocal)
        #expect(!IPv4Address(192, 168, 1, 1).isLinkLocal)
        #expect(IPv4Address(10, 0, 0, 2) < IPv4Address(10, 0, 1, 1))
        #expect(IPv4Address(9, 255, 255, 255) < IPv4Address(10, 0, 0, 0))
    }
}

@Suite("IPv6Address")
struct IPv6AddressTests {
    @Test func parsesAndFormatsLinkLocal() throws {
        let address = try #require(IPv6Address("fe80::1"))
        #expect(address.bytes == [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1])
        #expect(address.description == "fe80::1")
        #expect(address.isLinkLocal)
        #expect(IPv6Address("febf::1")?.isLinkLocal == true)
        #expect(IPv6Address("fec0::1")?.isLinkLocal == false)
        #expect(IPv6Address("2001:db8::1")?.isLinkLocal == false)
    }

    @Test func unspecifiedAndLoopback() throws {
        let any = try #require(IPv6Address("::"))
        #expect(any.bytes == [UInt8](repeating: 0, count: 16))
        #expect(any.description == "::")
        #expect(IPv6Address("::1")?.description == "::1")
        #expect(IPv6Address("1::")?.description == "1::")
        #expect(IPv6Address("0:0:0:0:0:0:0:0")?.description == "::")
    }

    /// RFC 5952 §4: lower case, no leading zeros, longest zero run (first if tied) as `::`, never for one group.
    @Test(arguments: [
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
        ("2001:DB8::ABCD", "2001:db8::abcd"),
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
        ("1:0:0:0:2:0:0:3", "1::2:0:0:3"),
        ("0:0:1:0:0:0:0:0", "0:0:1::"),
        ("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"),
        ("::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8"),
        ("fe80::1c2:3ff:fe04:506", "fe80::1c2:3ff:fe04:506"),
        ("ff02::fb", "ff02::fb"),
        ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"),
    ])
    func formatsPerRFC5952(text: String, expected: String) throws {
        let address = try #require(IPv6Address(text))
        #expect(address.description == expected)
        #expect(IPv6Address(expected) == address)
    }

    @Test(arguments: [
        "", ":", ":::", "1::2::3", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8",
        "12345::", "g::1", ":1::", "1::2:", "fe80::1%eth0", "::ffff:1.2.3.4x", "+1::", "fe80::-1", "fe80::+1",
        " ::1", "1.2.3.4",
    ])
    func rejectsBadText(text: String) {
        #expect(IPv6Address(text) == nil)
    }

    @Test func bytesInitChecksCountAndOrdering() throws {
        #expect(IPv6Address(bytes: [UInt8](repeating: 0, count: 15)) == nil)
        #expect(IPv6Address(bytes: [UInt8](repeating: 0, count: 17)) == nil)
        let bytes: [UInt8] = [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [0x42]
        let address = try #require(IPv6Address(bytes: bytes))
        #expect(address.description == "2001:db8::42")
        let loopback = try #require(IPv6Address("::1"))
        let previous = try #require(IPv6Address("2001:db8::41"))
        #expect(loopback < address)
        #expect(previous < address)
        #expect(!(address < previous))
    }
}
