import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// One view of a peer seen nearby and at direct addresses.
@Suite("Peer sightings from several sources")
struct PeerSightingsTests {
    static func advert(_ address: String, name: String = "Bob") throws -> PeerAdvert {
        try DirectAddressScheduleTests.advert("bob1", name: name).with(address: address)
    }

    @Test func aPeerSeenBothWaysIsFoundOnceWithTheDirectAddressFirstAndNotDirect() throws {
        var sightings = PeerSightings()
        let nearby = try Self.advert("192.168.1.9", name: "Bob nearby")
        let direct = try Self.advert("10.1.2.3")
        let first = sightings.apply(.found(direct), from: .address(0))
        #expect(first == .found(direct.with(isDirect: true)))
        guard case .found(let merged)? = sightings.apply(.found(nearby), from: .directory) else {
            Issue.record("no found after the directory saw the peer")
            return
        }
        #expect(merged.displayName == "Bob nearby")
        #expect(merged.addresses == direct.addresses + nearby.addresses)
        #expect(!merged.isDirect)
        // A repeated advert is handed on again, as the directory gives it.
        #expect(sightings.apply(.found(nearby), from: .directory) == .found(merged))
    }

    @Test func aPeerIsLostOnlyWhenTheLastSourceLosesIt() throws {
        var sightings = PeerSightings()
        let nearby = try Self.advert("192.168.1.9")
        let direct = try Self.advert("10.1.2.3")
        _ = sightings.apply(.found(nearby), from: .directory)
        _ = sightings.apply(.found(direct), from: .address(1))
        #expect(sightings.apply(.lost(nearby.peer), from: .directory) == .found(direct.with(isDirect: true)))
        #expect(sightings.apply(.lost(nearby.peer), from: .directory) == nil)
        #expect(sightings.apply(.lost(nearby.peer), from: .address(1)) == .lost(nearby.peer))
        #expect(sightings.merged(nearby.peer) == nil)
    }

    @Test func twoDirectAddressesOfOnePeerAreKeptInTheirOrder() throws {
        var sightings = PeerSightings()
        let second = try Self.advert("10.9.9.9")
        let first = try Self.advert("10.1.2.3")
        _ = sightings.apply(.found(second), from: .address(1))
        let merged = sightings.apply(.found(first), from: .address(0))
        #expect(merged == .found(first.with(isDirect: true).with(addresses: first.addresses + second.addresses)))
    }
}

extension PeerAdvert {
    func with(address: String) throws -> PeerAdvert {
        with(addresses: [try SocketAddress(ipAddress: address, port: port)])
    }

    func with(addresses: [SocketAddress]) -> PeerAdvert {
        var copy = self
        copy.addresses = addresses
        return copy
    }

    func with(isDirect: Bool) -> PeerAdvert {
        var copy = self
        copy.isDirect = isDirect
        return copy
    }
}
