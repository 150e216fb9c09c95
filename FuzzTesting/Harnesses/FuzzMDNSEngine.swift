import HuddleDNS
import HuddleMDNSCore
import NIOCore

/// Arbitrary packets → a running mDNS responder and querier (RFC 6762; docs/security.md §5 A6).
///
/// Both start from the same prepared state: host `fuzz` on `eth0` (10.0.0.2/24, fe80::2/64) owning
/// `Fuzz._lab._tcp.local.` and browsing `_lab._tcp`, with a cache of 64 records. The input is a list of packets,
/// each `source (1) | advance (1) | length (2, big-endian) | bytes`: the source byte picks who sent it (an on-link
/// peer on 5353, a legacy port, an off-link address, this host itself, IPv6) and whether it was multicast; the
/// clock moves `advance × 10 ms` before it. Whatever decodes as DNS goes to both; both tick; their output is taken.
///
/// Checked after every packet: the cache stays within its capacity and the resolved services within the cache;
/// the host label stays a valid label (1–63 bytes, no dot); every packet sent encodes, stays within RFC 6762 §17's
/// 9,000 bytes and decodes to the same message.
public func fuzzMDNSEngine(_ input: UnsafeRawBufferPointer) throws(FuzzInvariantViolation) {
    var (responder, querier, now) = MDNSEngineFixture.prepared
    var offset = 0
    while offset + 4 <= input.count {
        let source = Int(input[offset])
        now = now + .milliseconds(Int64(input[offset + 1]) * 10)
        let length = min(Int(input[offset + 2]) << 8 | Int(input[offset + 3]), input.count - offset - 4)
        let packet = ByteBuffer(bytes: UnsafeRawBufferPointer(rebasing: input[(offset + 4)..<(offset + 4 + length)]))
        offset += 4 + length
        if let message = try? DNSMessageDecoder().decode(packet) {
            let (endpoint, link) = MDNSEngineFixture.source(UInt8(source))
            let incoming = MDNSIncoming(message: message, source: endpoint, link: link, wasMulticast: source & 8 == 0)
            responder.received(incoming, now: now)
            querier.received(incoming, now: now)
        }
        responder.tick(now: now)
        querier.tick(now: now)
        try requireValid(responder.takeOutgoing(), from: "the responder")
        try requireValid(querier.takeOutgoing(), from: "the querier")
        _ = responder.takeEvents()
        _ = querier.takeEvents()
        try require(querier.cache.count <= MDNSEngineFixture.cacheCapacity, "the cache grew past its capacity")
        try require(
            querier.services.count <= MDNSEngineFixture.cacheCapacity,
            "more resolved services than cached records"
        )
        let label = responder.hostLabel
        try require((1...63).contains(label.utf8.count) && !label.contains("."), "host label '\(label)'")
    }
}

/// Every packet a state machine wants sent must be a DNS message that round-trips within 9,000 bytes.
private func requireValid(_ outgoing: [MDNSOutgoing], from who: String) throws(FuzzInvariantViolation) {
    for packet in outgoing {
        let bytes = packet.message.encoded()
        try require(bytes.readableBytes <= 9000, "\(who) built a \(bytes.readableBytes)-byte mDNS packet")
        let again = try? DNSMessageDecoder().decode(bytes)
        try require(again == packet.message, "\(who) built a message that does not decode back to itself")
    }
}

/// The host, its link and service, the peers packets come from, and the prepared responder and querier.
private enum MDNSEngineFixture {
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)
    static let cacheCapacity = 64
    static let v4 = MDNSLink(interfaceIndex: 2, family: .v4)
    static let v6 = MDNSLink(interfaceIndex: 2, family: .v6)
    static let ownV4 = IPv4Address(10, 0, 0, 2)
    static let ownV6 = IPv6Address("fe80::2")!
    static let eth0 = MDNSInterface(
        index: 2,
        name: "eth0",
        ipv4: [MDNSPrefix(ownV4, length: 24)],
        ipv6: [MDNSPrefix(ownV6, length: 64)]
    )
    static let type = MDNSServiceType(serviceName: "lab")

    /// Who sent a packet, by the low three bits of its source byte.
    static func source(_ byte: UInt8) -> (MDNSEndpoint, MDNSLink) {
        let peerV6 = MDNSAddress.v6(IPv6Address("fe80::9")!)
        switch byte & 7 {
        case 0: return (MDNSEndpoint(address: .v4(IPv4Address(10, 0, 0, 9)), port: 5353), v4)
        case 1: return (MDNSEndpoint(address: .v4(IPv4Address(10, 0, 0, 7)), port: 5353), v4)
        case 2: return (MDNSEndpoint(address: .v4(IPv4Address(10, 0, 0, 9)), port: 40_000), v4)
        case 3: return (MDNSEndpoint(address: .v4(IPv4Address(192, 0, 2, 9)), port: 5353), v4)
        case 4: return (MDNSEndpoint(address: .v4(ownV4), port: 5353), v4)
        case 5: return (MDNSEndpoint(address: peerV6, port: 5353), v6)
        case 6: return (MDNSEndpoint(address: peerV6, port: 40_000), v6)
        default: return (MDNSEndpoint(address: .v6(ownV6), port: 5353), v6)
        }
    }

    /// The responder past probing and announcing, the querier browsing, and the time then: made once (a few ticks
    /// at the moments probing and announcing need). Both are values, so every input starts from its own copy and no
    /// state outlives an input; making them afresh each time was half of the harness's time.
    static let prepared = makePrepared()

    private static func makePrepared() -> (MDNSResponder, MDNSQuerier, NIODeadline) {
        var now = start
        var responder = try! MDNSResponder(hostLabel: "fuzz", randomSeed: 1, now: now)
        responder.setInterfaces([eth0], now: now)
        let registration = try! MDNSServiceRegistration(
            instanceName: "Fuzz",
            type: type,
            port: 4242,
            txt: try! MDNSTXTRecord(arguments: ["v=1"])
        )
        _ = responder.register(registration, now: now)
        var configuration = MDNSQuerierConfiguration()
        configuration.cacheCapacity = cacheCapacity
        var querier = MDNSQuerier(configuration: configuration, randomSeed: 2)
        querier.setLinks([v4, v6], ownAddresses: [.v4(ownV4), .v6(ownV6)], now: now)
        querier.browse(type, now: now)
        for milliseconds in [260, 510, 760, 1010, 1260, 1510, 2510, 4510, 8510] {
            now = start + .milliseconds(Int64(milliseconds))
            responder.tick(now: now)
            querier.tick(now: now)
            _ = responder.takeOutgoing()
            _ = responder.takeEvents()
            _ = querier.takeOutgoing()
            _ = querier.takeEvents()
        }
        // The fixture's own state, the same for every input: a failure here is a broken harness, not a finding.
        precondition(responder.registrations.keys.allSatisfy(responder.isEstablished), "not past probing")
        return (responder, querier, now)
    }
}
