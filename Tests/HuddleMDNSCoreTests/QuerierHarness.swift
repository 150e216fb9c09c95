import HuddleDNS
import NIOCore

@testable import HuddleMDNSCore

/// A manual clock in whole milliseconds from an arbitrary origin.
struct TestClock {
    var now: NIODeadline = .uptimeNanoseconds(1_000_000_000_000)
    let origin: NIODeadline = .uptimeNanoseconds(1_000_000_000_000)

    mutating func advance(_ amount: TimeAmount) { self.now = self.now + amount }

    /// Milliseconds since the origin.
    var elapsedMilliseconds: Int64 { (self.now - self.origin).nanoseconds / 1_000_000 }
}

/// Test addresses on one simulated link.
enum TestNet {
    static let interfaceIndex = 2
    static let link = MDNSLink(interfaceIndex: 2, family: .v4)
    static let hostA = IPv4Address(10, 0, 0, 1)
    static let hostB = IPv4Address(10, 0, 0, 2)
    static let hostC = IPv4Address(10, 0, 0, 3)

    static func interface(_ address: IPv4Address, v6: IPv6Address? = nil) -> MDNSInterface {
        MDNSInterface(
            index: self.interfaceIndex,
            name: "eth0",
            ipv4: [MDNSPrefix(address, length: 24)],
            ipv6: v6.map { [MDNSPrefix($0, length: 64)] } ?? []
        )
    }

    static func from(_ address: IPv4Address, port: UInt16 = mdnsPort) -> MDNSEndpoint {
        MDNSEndpoint(address: .v4(address), port: port)
    }

    /// A multicast datagram received on the test link.
    static func incoming(
        _ message: DNSMessage,
        from address: IPv4Address,
        port: UInt16 = mdnsPort,
        multicast: Bool = true
    )
        -> MDNSIncoming
    {
        MDNSIncoming(message: message, source: self.from(address, port: port), link: self.link, wasMulticast: multicast)
    }

    static let labType = MDNSServiceType(serviceName: "lab")
    static let labTypeName: DNSName = "_lab._tcp.local"
}

/// A querier on host B, driven by a manual clock; records what it sends and reports.
struct QuerierDriver {
    var querier: MDNSQuerier
    var clock = TestClock()
    var sent: [(ms: Int64, message: DNSMessage)] = []
    var events: [(ms: Int64, event: MDNSBrowseEvent)] = []

    init(seed: UInt64 = 7, configuration: MDNSQuerierConfiguration = MDNSQuerierConfiguration()) {
        self.querier = MDNSQuerier(configuration: configuration, randomSeed: seed)
        self.querier.setLinks([TestNet.link], ownAddresses: [.v4(TestNet.hostB)], now: self.clock.now)
        self.collect()
    }

    /// A driver whose querier browses `_lab._tcp` and has sent its first query (about 20–120 ms in).
    static func browsing(
        seed: UInt64 = 7,
        configuration: MDNSQuerierConfiguration = MDNSQuerierConfiguration()
    )
        -> QuerierDriver
    {
        var driver = QuerierDriver(seed: seed, configuration: configuration)
        driver.querier.browse(TestNet.labType, now: driver.clock.now)
        driver.run(untilMilliseconds: 200)
        return driver
    }

    mutating func collect() {
        for out in self.querier.takeOutgoing() { self.sent.append((self.clock.elapsedMilliseconds, out.message)) }
        for event in self.querier.takeEvents() { self.events.append((self.clock.elapsedMilliseconds, event)) }
    }

    /// Runs every deadline up to `until` (milliseconds since the origin).
    mutating func run(untilMilliseconds until: Int64) {
        let end = self.clock.origin + .milliseconds(until)
        while let next = self.querier.nextDeadline, next <= end {
            self.clock.now = max(self.clock.now, next)
            self.querier.tick(now: self.clock.now)
            self.collect()
        }
        self.clock.now = max(self.clock.now, end)
    }

    mutating func receive(
        _ message: DNSMessage,
        from address: IPv4Address = TestNet.hostA,
        port: UInt16 = mdnsPort,
        multicast: Bool = true
    ) {
        self.querier.received(
            TestNet.incoming(message, from: address, port: port, multicast: multicast),
            now: self.clock.now
        )
        self.collect()
    }

    /// Queries sent, as (time, question names and types).
    var queries: [(ms: Int64, message: DNSMessage)] { self.sent.filter { !$0.message.isResponse } }

    var addedNames: [String] {
        self.events.compactMap {
            if case .added(let service) = $0.event { return service.instanceName } else { return nil }
        }
    }
}

/// Records a service would publish, for feeding a querier.
enum TestRecords {
    static func instance(_ name: String) -> DNSName { try! TestNet.labTypeName.prepending(label: name) }
    static let host: DNSName = "hosta.local"

    static func ptr(_ name: String, ttl: UInt32 = 4500) -> DNSRecord {
        DNSRecord(name: TestNet.labTypeName, data: .ptr(self.instance(name)), ttl: ttl)
    }

    static func srv(_ name: String, port: UInt16 = 1234, ttl: UInt32 = 120) -> DNSRecord {
        DNSRecord(
            name: self.instance(name),
            data: .srv(priority: 0, weight: 0, port: port, target: self.host),
            ttl: ttl,
            cacheFlush: true
        )
    }

    static func txt(_ name: String, _ strings: [String] = ["k=v"], ttl: UInt32 = 4500) -> DNSRecord {
        DNSRecord(name: self.instance(name), data: .txt(strings.map { Array($0.utf8) }), ttl: ttl, cacheFlush: true)
    }

    static func a(_ address: IPv4Address = TestNet.hostA, ttl: UInt32 = 120, cacheFlush: Bool = true) -> DNSRecord {
        DNSRecord(name: self.host, data: .a(address), ttl: ttl, cacheFlush: cacheFlush)
    }

    /// A full announcement of one instance.
    static func announcement(_ name: String, port: UInt16 = 1234, txt: [String] = ["k=v"]) -> DNSMessage {
        .response(answers: [self.ptr(name), self.srv(name, port: port), self.txt(name, txt), self.a()])
    }
}
