import HuddleDNS
import HuddleTestSupport
import HuddleTransport
import HuddleWideArea
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// A session registering in a wide-area domain takes out what earlier sessions of its device left there; the
/// browse that finds those is unsigned, so what it deletes must be of its own names' form and still on the server
/// as found (RFC 2136 §2.4.2). Against a DNS server in memory that answers as told and applies nothing.
@Suite("Wide-area stale registrations", .timeLimit(.minutes(1)))
struct StaleRegistrationTests {
    static let key = TSIGKey(name: "huddle-update.", secret: Array(repeating: 7, count: 32))
    static let domain: DNSName = "example."
    static let serviceType = "_typingtogether._tcp"
    static let service: DNSName = "_typingtogether._tcp.example."
    static let oldToken = "abcdefghijklmnop"

    /// Owns the executor the wide-area actor shares, as a session's transfers actor does.
    actor Owner {}

    let identity = try! DeviceIdentity.ephemeral()

    var advert: PeerAdvert {
        PeerAdvert(
            serviceType: Self.serviceType,
            peer: PeerID(rawValue: "qrstuvwxyz234567"),
            displayName: "Ada",
            deviceID: identity.deviceID,
            mode: .peer,
            port: 47474
        )
    }

    /// An instance of the service in the zone: its PTR, SRV (to `target`) and TXT (this device's `id`, and `in`),
    /// and an A record at the target.
    func instance(label: String, target: DNSName, token: String = Self.oldToken) throws -> [DNSRecord] {
        let name = try Self.service.prepending(label: label)
        let txt = [Array("v=1".utf8), Array("id=\(identity.deviceID)".utf8), Array("in=\(token)".utf8)]
        return [
            DNSRecord(name: Self.service, data: .ptr(name), ttl: 120),
            DNSRecord(name: name, data: .srv(priority: 0, weight: 0, port: 47474, target: target), ttl: 120),
            DNSRecord(name: name, data: .txt(txt), ttl: 120),
            DNSRecord(name: target, data: .a(IPv4Address(192, 0, 2, 80)), ttl: 120),
        ]
    }

    /// Registers `advert` through a server holding `zone`; returns what the server received.
    func register(
        in zone: [DNSRecord],
        updateRCode: @escaping @Sendable (DNSMessage) -> UInt8 = { _ in 0 }
    ) async throws -> [DNSMessage] {
        let server = FakeDNSServer.start(zone: zone, key: Self.key, updateRCode: updateRCode)
        var configuration = WideAreaConfiguration(domain: Self.domain, server: server.address, key: Self.key)
        configuration.pollInterval = .seconds(30)
        let wideArea = SessionWideArea(
            configuration: configuration,
            clock: SystemSessionClock(),
            exchange: server,
            sharingExecutorOf: Owner()
        )
        let advert = self.advert
        let registering = Task { try await wideArea.register(advert, hosts: ["10.0.0.1"]) }
        let outcome = await result(of: registering)
        await server.close()
        try #require(outcome != nil, "the registration ended")
        try outcome!.get()
        return server.updates
    }

    /// Every owner name an UPDATE's prerequisites and updates touch.
    static func names(_ update: DNSMessage) -> Set<DNSName> {
        Set((update.answers + update.authorities).map(\.name))
    }

    /// The forged (or planted) instance claims this device and has its instance label's form, but its SRV names a
    /// host outside the form `huddle-<token>.<domain>`: the site's web server, or the zone's apex. Nothing may
    /// delete it; only the registration's own UPDATE is sent.
    @Test(arguments: ["www.example.", "example."] as [DNSName])
    func anInstanceWhoseHostIsNotOfTheDevicesFormIsLeftAlone(target: DNSName) async throws {
        let label = "Old (\(identity.deviceID.shortID))"
        let updates = try await register(in: try instance(label: label, target: target))
        #expect(updates.count == 1, "the registration's UPDATE only")
        for update in updates {
            #expect(!Self.names(update).contains(target), "an UPDATE touched \(target)")
            #expect(!Self.names(update).contains(try Self.service.prepending(label: label)))
        }
    }

    /// The instance's host has the device's form, but its label is not of this device (no ` (<short ID>)`): it is
    /// left alone too, whatever its TXT `id` says.
    @Test func anInstanceWhoseLabelIsNotOfTheDevicesFormIsLeftAlone() async throws {
        let target = try Self.domain.prepending(label: "huddle-\(Self.oldToken)")
        let updates = try await register(in: try instance(label: "Old (ZZZZZZZ)", target: target))
        #expect(updates.count == 1)
        #expect(updates.allSatisfy { !Self.names($0).contains(target) })
    }

    /// An earlier session's registration of this device goes, in one UPDATE on condition that the server still
    /// holds the TXT and SRV the browse found (RFC 2136 §2.4.2: class IN, TTL 0, the records themselves).
    @Test func anEarlierRegistrationOfTheDeviceIsRemovedOnConditionOfItsRecords() async throws {
        let target = try Self.domain.prepending(label: "huddle-\(Self.oldToken)")
        let label = "Old (\(identity.deviceID.shortID))"
        let zone = try instance(label: label, target: target)
        let updates = try await register(in: zone)
        try #require(updates.count == 2)
        let removal = updates[0]
        let name = try Self.service.prepending(label: label)
        #expect(
            removal.answers == [
                DNSRecord(name: name, data: zone[2].data, ttl: 0),
                DNSRecord(name: name, data: .srv(priority: 0, weight: 0, port: 47474, target: target), ttl: 0),
            ]
        )
        #expect(
            removal.authorities == [
                DNSRecord(name: Self.service, data: .ptr(name), ttl: 0, recordClass: DNSUpdate.none),
                DNSRecord(name: name, data: .unknown(.any, []), ttl: 0, recordClass: .any),
                DNSRecord(name: target, data: .unknown(.any, []), ttl: 0, recordClass: .any),
            ]
        )
        #expect(updates[1].answers.isEmpty, "the registration itself has no prerequisite")
    }

    /// The server says the prerequisite does not hold (NXRRSET): the zone was left alone, and the registration
    /// goes ahead.
    @Test func aRemovalWhosePrerequisiteFailsIsPassedOver() async throws {
        let target = try Self.domain.prepending(label: "huddle-\(Self.oldToken)")
        let zone = try instance(label: "Old (\(identity.deviceID.shortID))", target: target)
        let updates = try await register(in: zone) { $0.answers.isEmpty ? 0 : 8 }
        #expect(updates.count == 2)
    }
}

/// A domain listing more instances than a session looks at: the first poll hands on as many addresses as the bound
/// allows (32 in a session: ``WideAreaAddressesTests``; 2 here, to keep the poll short), and says once that the
/// rest were left out.
@Suite("Wide-area browsing bound", .timeLimit(.minutes(1)))
struct WideAreaBrowsingBoundTests {
    actor Owner {}

    @Test func aPollHandsOnNoMoreAddressesThanTheBound() async throws {
        let service: DNSName = "_typingtogether._tcp.example."
        var zone: [DNSRecord] = []
        for index in 0..<3 {
            let device = try DeviceIdentity.ephemeral().deviceID
            let name = try service.prepending(label: "Peer\(index)")
            let host = try DNSName("example.").prepending(label: "host\(index)")
            let txt = [Array("id=\(device)".utf8), Array("in=token\(index)".utf8)]
            zone += [
                DNSRecord(name: service, data: .ptr(name), ttl: 120),
                DNSRecord(name: name, data: .srv(priority: 0, weight: 0, port: 47474, target: host), ttl: 120),
                DNSRecord(name: name, data: .txt(txt), ttl: 120),
                DNSRecord(name: host, data: .a(IPv4Address(10, 9, 0, UInt8(index))), ttl: 120),
            ]
        }
        let server = FakeDNSServer.start(zone: zone, key: nil)
        let configuration = WideAreaConfiguration(domain: "example.", server: server.address, key: nil)
        let wideArea = SessionWideArea(
            configuration: configuration,
            addressBounds: .init(limit: 2, pollsBeforeDrop: 3),
            clock: SystemSessionClock(),
            exchange: server,
            sharingExecutorOf: Owner()
        )
        let changes = EventRecorder<WideAreaAddresses.Changes>()
        let failures = EventRecorder<PeerSessionError>()
        await wideArea.startBrowsing(
            serviceType: "_typingtogether._tcp",
            own: PeerID(rawValue: "qrstuvwxyz234567"),
            changed: { changes.record($0) },
            failed: { failures.record($0) }
        )
        let first = await changes.first(within: .seconds(50)) { $0 }
        await wideArea.stopBrowsing()
        await server.close()
        let poll = try #require(first)
        #expect(poll.added.map(\.address.host) == ["10.9.0.0", "10.9.0.1"])
        #expect(poll.refused == 1)
        #expect(
            failures.events.map(\.description) == [
                "wide-area DNS-SD: example. lists more than 2 addresses: 1 left out"
            ]
        )
    }
}
