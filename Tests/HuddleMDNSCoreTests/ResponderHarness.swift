import HuddleDNS
import HuddleMDNSCore
import NIOCore
import Testing

/// Names, addresses and records shared by the responder tests.
///
/// The responder runs as host `huddle` on `eth0` (index 2: `10.0.0.2/24` and `fe80::2/64`), and advertises
/// `Kitchen._http._tcp.local.` on port 8080 with TXT `path=/`. The peer is `10.0.0.9:5353`, on the same link.
enum ResponderFixture {
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

    static let hostName: DNSName = "huddle.local"
    static let ipv4 = IPv4Address(10, 0, 0, 2)
    static let ipv6 = IPv6Address("fe80::2")!
    static let eth0 = MDNSInterface(
        index: 2,
        name: "eth0",
        ipv4: [MDNSPrefix(ipv4, length: 24)],
        ipv6: [MDNSPrefix(ipv6, length: 64)]
    )
    static let eth0IPv4Only = MDNSInterface(index: 2, name: "eth0", ipv4: [MDNSPrefix(ipv4, length: 24)], ipv6: [])
    static let linkV4 = MDNSLink(interfaceIndex: 2, family: .v4)
    static let linkV6 = MDNSLink(interfaceIndex: 2, family: .v6)

    static let peer = MDNSEndpoint(address: .v4(IPv4Address(10, 0, 0, 9)), port: 5353)
    static let peerV6 = MDNSEndpoint(address: .v6(IPv6Address("fe80::9")!), port: 5353)
    static let offLinkPeer = MDNSEndpoint(address: .v4(IPv4Address(192, 0, 2, 9)), port: 5353)
    static let legacyPeer = MDNSEndpoint(address: .v4(IPv4Address(10, 0, 0, 9)), port: 40_000)

    /// How many announcements the default configuration sends (RFC 6762 §8.3: at least 2, at most 8).
    static let announceCount = MDNSResponderConfiguration().announceCount

    /// When each announcement goes out, counted from the first: 0, 1 s, 3 s, 7 s… (one second, then doubling).
    static let announcementOffsets: [TimeAmount] = (0..<announceCount).map { .seconds((1 << Int64($0)) - 1) }

    static let httpType = MDNSServiceType(serviceName: "http")
    static let typeName: DNSName = "_http._tcp.local"
    static let instance: DNSName = "Kitchen._http._tcp.local"

    static func instance(_ label: String) -> DNSName {
        DNSName(uncheckedLabels: [Array(label.utf8)] + typeName.labels)
    }

    static func kitchen(
        name: String = "Kitchen",
        type: MDNSServiceType = httpType,
        port: UInt16 = 8080,
        txt: [String] = ["path=/"],
        subtypes: [String] = []
    ) -> MDNSServiceRegistration {
        try! MDNSServiceRegistration(
            instanceName: name,
            type: type,
            port: port,
            txt: try! MDNSTXTRecord(arguments: txt),
            subtypes: subtypes
        )
    }

    static func srv(
        _ owner: DNSName = instance,
        port: UInt16 = 8080,
        target: DNSName = hostName,
        ttl: UInt32 = 120,
        cacheFlush: Bool = true
    ) -> DNSRecord {
        DNSRecord(
            name: owner,
            data: .srv(priority: 0, weight: 0, port: port, target: target),
            ttl: ttl,
            cacheFlush: cacheFlush
        )
    }

    static func txt(
        _ owner: DNSName = instance,
        _ strings: [String] = ["path=/"],
        ttl: UInt32 = 4500,
        cacheFlush: Bool = true
    ) -> DNSRecord {
        DNSRecord(name: owner, data: .txt(strings.map { Array($0.utf8) }), ttl: ttl, cacheFlush: cacheFlush)
    }

    static func ptr(_ owner: DNSName = typeName, to target: DNSName = instance, ttl: UInt32 = 4500) -> DNSRecord {
        DNSRecord(name: owner, data: .ptr(target), ttl: ttl)
    }

    static func a(_ address: IPv4Address = ipv4, owner: DNSName = hostName, ttl: UInt32 = 120) -> DNSRecord {
        DNSRecord(name: owner, data: .a(address), ttl: ttl, cacheFlush: true)
    }

    static func aaaa(_ address: IPv6Address = ipv6, owner: DNSName = hostName, ttl: UInt32 = 120) -> DNSRecord {
        DNSRecord(name: owner, data: .aaaa(address), ttl: ttl, cacheFlush: true)
    }

    /// A multicast query (QM unless `unicastResponse`).
    static func query(
        _ name: DNSName,
        _ type: DNSRecordType,
        unicastResponse: Bool = false,
        knownAnswers: [DNSRecord] = []
    ) -> DNSMessage {
        DNSMessage.query(
            [DNSQuestion(name: name, type: type, unicastResponse: unicastResponse)],
            knownAnswers: knownAnswers
        )
    }

    /// A probe from another host: ANY questions, proposed records in the authority section (RFC 6762 §8.1).
    static func probe(_ name: DNSName, proposing records: [DNSRecord], unicastResponse: Bool = true) -> DNSMessage {
        DNSMessage(
            isResponse: false,
            questions: [DNSQuestion(name: name, type: .any, unicastResponse: unicastResponse)],
            authorities: records
        )
    }
}

/// One datagram the responder produced, with the (manual) time at which it produced it.
struct ResponderSentPacket: CustomStringConvertible {
    var time: NIODeadline
    var outgoing: MDNSOutgoing

    var message: DNSMessage { self.outgoing.message }
    var link: MDNSLink { self.outgoing.link }
    var isResponse: Bool { self.message.isResponse }

    var isMulticast: Bool {
        if case .multicast = self.outgoing.destination { return true }
        return false
    }

    /// The unicast endpoint, or nil for multicast.
    var unicastTarget: MDNSEndpoint? {
        if case .unicast(let endpoint, _) = self.outgoing.destination { return endpoint }
        return nil
    }

    /// The datagram as the transport puts it on the wire.
    var wire: [UInt8] {
        Array(self.message.encoded(compressSRVTarget: self.outgoing.compressSRVTarget).readableBytesView)
    }

    var records: [DNSRecord] { self.message.answers + self.message.authorities + self.message.additionals }

    /// A probe for `name`: a query with an ANY question for it and proposed records in the authority section.
    func isProbe(for name: DNSName) -> Bool {
        !self.isResponse && self.message.questions.contains { $0.name == name && $0.type == .any }
            && !self.message.authorities.isEmpty
    }

    /// A one-line summary for failure messages.
    var description: String {
        func list(_ records: [DNSRecord]) -> String {
            records.map { "\($0.name) \($0.type) ttl \($0.ttl)\($0.cacheFlush ? " cf" : "")" }.joined(separator: ", ")
        }
        let kind = self.isResponse ? "response" : "query"
        let destination = self.unicastTarget.map { "unicast to \($0)" } ?? "multicast"
        let milliseconds = self.time.uptimeNanoseconds / 1_000_000
        return "\(kind) \(destination) on \(self.link) at \(milliseconds) ms, \(self.wire.count) bytes: "
            + "qd [\(self.message.questions.map { "\($0.name) \($0.type)" }.joined(separator: ", "))] "
            + "an [\(list(self.message.answers))] ns [\(list(self.message.authorities))] "
            + "ar [\(list(self.message.additionals))]"
    }

    /// Whether the answer section holds a record with this name and data (TTL and cache-flush ignored).
    func answers(_ record: DNSRecord) -> Bool {
        self.message.answers.contains { $0.sameRecord(as: record) }
    }
}

/// Drives an ``MDNSResponder`` with a manual clock.
///
/// Every entry point runs at ``now``; ``advance(to:)`` calls `tick` at each `nextDeadline` on the way, so every
/// datagram is stamped with the exact instant the responder produced it. Nothing sleeps and nothing is shared.
struct ResponderHarness {
    private(set) var responder: MDNSResponder
    let start: NIODeadline
    private(set) var now: NIODeadline
    private(set) var sent: [ResponderSentPacket] = []
    private(set) var events: [(time: NIODeadline, event: MDNSResponderEvent)] = []
    private(set) var interfaces: [MDNSInterface]
    /// When true, every multicast datagram comes back to the responder on every link of its family, from our own
    /// address, as `IP_MULTICAST_LOOP` does (and as a bridge joining two interfaces of ours does).
    var loopback = false
    /// With ``loopback``: whether all our interfaces sit on one LAN, so a datagram sent on one arrives on all.
    var bridged = false

    init(
        hostLabel: String = "huddle",
        families: Set<MDNSFamily> = [.v4, .v6],
        interfaces: [MDNSInterface] = [ResponderFixture.eth0],
        configuration: MDNSResponderConfiguration = MDNSResponderConfiguration(),
        seed: UInt64 = 7,
        loopback: Bool = false,
        bridged: Bool = false
    ) throws {
        self.start = ResponderFixture.start
        self.now = ResponderFixture.start
        self.interfaces = interfaces
        self.loopback = loopback
        self.bridged = bridged
        self.responder = try MDNSResponder(
            hostLabel: hostLabel,
            families: families,
            configuration: configuration,
            randomSeed: seed,
            now: ResponderFixture.start
        )
        self.responder.setInterfaces(interfaces, now: self.now)
        self.collect()
    }

    // MARK: Driving

    @discardableResult
    mutating func register(_ registration: MDNSServiceRegistration = ResponderFixture.kitchen()) -> MDNSServiceID {
        let id = self.responder.register(registration, now: self.now)
        self.collect()
        return id
    }

    mutating func unregister(_ id: MDNSServiceID) {
        self.responder.unregister(id, now: self.now)
        self.collect()
    }

    mutating func update(_ id: MDNSServiceID, txt: [String]? = nil, port: UInt16? = nil) {
        self.responder.update(id, txt: txt.map { try! MDNSTXTRecord(arguments: $0) }, port: port, now: self.now)
        self.collect()
    }

    mutating func setInterfaces(_ interfaces: [MDNSInterface]) {
        self.interfaces = interfaces
        self.responder.setInterfaces(interfaces, now: self.now)
        self.collect()
    }

    mutating func shutdown() {
        self.responder.shutdown(now: self.now)
        self.collect()
    }

    /// Delivers a datagram (after a round trip through the wire format) at the current time.
    mutating func receive(
        _ message: DNSMessage,
        from source: MDNSEndpoint = ResponderFixture.peer,
        on link: MDNSLink = ResponderFixture.linkV4,
        multicast: Bool = true
    ) {
        let decoded = try! DNSMessageDecoder().decode(message.encoded())
        let incoming = MDNSIncoming(message: decoded, source: source, link: link, wasMulticast: multicast)
        self.responder.received(incoming, now: self.now)
        self.collect()
    }

    /// Runs every deadline up to and including `time`, then sets the clock to `time`.
    mutating func advance(to time: NIODeadline) {
        var steps = 0
        while let deadline = self.responder.nextDeadline, deadline <= time {
            steps += 1
            if steps > 100_000 {
                Issue.record("nextDeadline \(deadline) never moves past \(self.now): tick does not make progress")
                break
            }
            self.now = max(self.now, deadline)
            self.responder.tick(now: self.now)
            self.collect()
        }
        self.now = max(self.now, time)
    }

    mutating func advance(by amount: TimeAmount) { self.advance(to: self.now + amount) }

    /// Runs deadlines until nothing is scheduled (at most `limit` of manual time).
    mutating func runUntilIdle(limit: TimeAmount = .seconds(600)) {
        let end = self.now + limit
        while let deadline = self.responder.nextDeadline, deadline <= end {
            self.advance(to: deadline)
        }
    }

    /// Returns the first datagram sent at or after `since` that satisfies `predicate`, running deadline by
    /// deadline (for at most `limit`) until one is sent; nil if none is.
    @discardableResult
    mutating func advance(
        until predicate: (ResponderSentPacket) -> Bool,
        since: NIODeadline? = nil,
        limit: TimeAmount = .seconds(30)
    ) -> ResponderSentPacket? {
        let from = since ?? self.now
        if let match = self.sent.first(where: { $0.time >= from && predicate($0) }) { return match }
        let end = self.now + limit
        var seen = self.sent.count
        while let deadline = self.responder.nextDeadline, deadline <= end {
            self.advance(to: deadline)
            if let match = self.sent[seen...].first(where: predicate) { return match }
            seen = self.sent.count
        }
        return nil
    }

    /// The first probe for `name` on the IPv4 link sent at or after `since`, running the clock until it is sent.
    mutating func nextProbe(
        for name: DNSName,
        since: NIODeadline? = nil,
        limit: TimeAmount = .seconds(30)
    ) -> ResponderSentPacket? {
        self.advance(
            until: { $0.link == ResponderFixture.linkV4 && $0.isProbe(for: name) },
            since: since,
            limit: limit
        )
    }

    /// Registers the Kitchen service and runs until it is established and all announcements are out.
    @discardableResult
    mutating func registerAndSettle(
        _ registration: MDNSServiceRegistration = ResponderFixture.kitchen()
    ) -> MDNSServiceID {
        let id = self.register(registration)
        self.runUntilIdle()
        return id
    }

    private mutating func collect() {
        var queue = self.takeNew()
        var rounds = 0
        while !queue.isEmpty {
            rounds += 1
            if rounds > 1_000 {
                Issue.record("the responder keeps answering its own looped-back packets")
                return
            }
            let packet = queue.removeFirst()
            guard self.loopback, packet.isMulticast, let source = self.ownAddress(on: packet.link) else { continue }
            let decoded = try! DNSMessageDecoder().decode(packet.wire)
            let receivers = self.interfaces.filter { self.bridged || $0.index == packet.link.interfaceIndex }
            for interface in receivers {
                let link = MDNSLink(interfaceIndex: interface.index, family: packet.link.family)
                guard self.ownAddress(on: link) != nil else { continue }
                let incoming = MDNSIncoming(
                    message: decoded,
                    source: MDNSEndpoint(address: source, port: mdnsPort),
                    link: link,
                    wasMulticast: true
                )
                self.responder.received(incoming, now: self.now)
                queue += self.takeNew()
            }
        }
    }

    /// Our first address on a link: the source of what we multicast there.
    func ownAddress(on link: MDNSLink) -> MDNSAddress? {
        guard let interface = self.interfaces.first(where: { $0.index == link.interfaceIndex }) else { return nil }
        switch link.family {
        case .v4: return interface.ipv4.first.map { .v4($0.address) }
        case .v6: return interface.ipv6.first.map { .v6($0.address) }
        }
    }

    private mutating func takeNew() -> [ResponderSentPacket] {
        let packets = self.responder.takeOutgoing().map { ResponderSentPacket(time: self.now, outgoing: $0) }
        self.sent += packets
        self.events += self.responder.takeEvents().map { (self.now, $0) }
        return packets
    }

    // MARK: Looking at what was sent

    /// Datagrams sent at or after `time`, optionally only those leaving by `link`.
    func sent(since time: NIODeadline, on link: MDNSLink? = nil) -> [ResponderSentPacket] {
        self.sent.filter { $0.time >= time && (link == nil || $0.link == link) }
    }

    /// Probes for `name` on a link, in order.
    func probes(for name: DNSName, on link: MDNSLink = ResponderFixture.linkV4) -> [ResponderSentPacket] {
        self.sent.filter { $0.link == link && $0.isProbe(for: name) }
    }

    /// Responses sent at or after `time` on a link.
    func responses(since time: NIODeadline, on link: MDNSLink = ResponderFixture.linkV4) -> [ResponderSentPacket] {
        self.sent(since: time, on: link).filter(\.isResponse)
    }

    /// Multicast responses on a link whose answer section holds `record` (TTL ignored) with a non-zero TTL.
    func announcements(of record: DNSRecord, on link: MDNSLink = ResponderFixture.linkV4) -> [ResponderSentPacket] {
        self.sent.filter { packet in
            packet.link == link && packet.isResponse && packet.isMulticast
                && packet.message.answers.contains { $0.sameRecord(as: record) && $0.ttl > 0 }
        }
    }

    /// Time since the harness started.
    func elapsed(_ time: NIODeadline) -> TimeAmount { time - self.start }
}
