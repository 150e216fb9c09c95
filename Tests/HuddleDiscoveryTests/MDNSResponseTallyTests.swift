import HuddleDNS
import HuddleMDNSCore
import Testing

@testable import HuddleDiscovery

/// What the multicast check keeps of the responses it hears: each distinct one once, at most a limit of them, and
/// a count of all.
@Suite("mDNS check: responses kept")
struct MDNSResponseTallyTests {
    static func response(_ last: Int, interface: Int = 2) -> MDNSMulticastProbe.Response {
        MDNSMulticastProbe.Response(
            interfaceIndex: interface,
            family: .v4,
            source: .v4(IPv4Address(10, 0, UInt8(last / 256), UInt8(last % 256))),
            advertisedAddresses: []
        )
    }

    @Test func repeatsAreCountedNotKept() {
        var tally = MDNSResponseTally(limit: 8)
        for _ in 0..<10_000 { tally.add(Self.response(1)) }
        tally.add(Self.response(2, interface: 3))
        #expect(tally.kept == [Self.response(1), Self.response(2, interface: 3)])
        #expect(tally.counts == [2: 10_000, 3: 1])
    }

    @Test func distinctResponsesBeyondTheLimitAreCountedNotKept() {
        var tally = MDNSResponseTally(limit: 8)
        for last in 0..<1000 { tally.add(Self.response(last)) }
        #expect(tally.kept == (0..<8).map { Self.response($0) })
        #expect(tally.counts == [2: 1000])
        #expect(MDNSResponseTally().limit == 256)
    }
}
