public import HuddleDNS
public import NIOCore

/// Settings of a querier, with the RFC's values as defaults.
public struct MDNSQuerierConfiguration: Sendable {
    /// The longest gap between two queries of a continuous series (RFC 6762 §5.2: may cap at 60 minutes).
    public var maxQueryInterval: TimeAmount = .seconds(3600)
    /// Cache capacity.
    public var cacheCapacity = 10_000
    /// Largest query payload (RFC 6762 §17, 1500-byte MTU); larger known-answer lists are split with TC (§7.2).
    public var maxIPv4Payload = 1472
    public var maxIPv6Payload = 1452
    /// Whether the first query of a series asks for unicast replies (RFC 6762 §5.4). Off by default: when
    /// another stack shares port 5353 on the host, a unicast reply may reach its socket instead of ours.
    public var firstQueryUnicast = false

    public init() {}
}

/// The mDNS querier as a pure state machine: continuous browsing with known answers, resolving, and a cache
/// (RFC 6762 §5, §7, §10; RFC 6763 §4, §9, §12).
///
/// Like ``MDNSResponder`` it takes `now` in every call, collects datagrams in ``takeOutgoing()`` and
/// events in ``takeEvents()``, and says when ``tick(now:)`` is next due.
public struct MDNSQuerier: Sendable {
    public let configuration: MDNSQuerierConfiguration
    public internal(set) var cache: MDNSCache
    var links: [MDNSLink] = []
    var ownAddresses: Set<MDNSAddress> = []
    var questions: [QuestionKey: QuestionState] = [:]
    /// Browse name → whether it is type enumeration.
    var browses: Set<DNSName> = []
    var reported: [DNSName: MDNSResolvedService] = [:]
    var reportedTypes: Set<DNSName> = []
    var random: MDNSRandom
    var outgoing: [MDNSOutgoing] = []
    var events: [MDNSBrowseEvent] = []
    var lastUnicastQuestion: NIODeadline?
    /// Set by the I/O layer while no other socket on the host shares port 5353 with this querier's, so a unicast
    /// reply can only reach it: then first queries ask for unicast replies (RFC 6762 §5.4) even without
    /// ``MDNSQuerierConfiguration/firstQueryUnicast``. A responder that multicast the answer less than a second
    /// ago may not multicast it again (§6) but may unicast it, so a querier started just after an announcement
    /// finds the service at once instead of at its second query a second later.
    public var unicastRepliesReachOnlyUs = false
    /// Names whose cached records changed since the views were last brought up to date.
    var dirtyNames: Set<DNSName> = []
    /// Whether every view must be rebuilt (browses or interfaces changed).
    var needsFullRefresh = true
    /// The SRV target of each instance seen, both ways, to find the instances a host's address change affects.
    var hostOfInstance: [DNSName: DNSName] = [:]
    var instancesOfHost: [DNSName: Set<DNSName>] = [:]

    public init(configuration: MDNSQuerierConfiguration = MDNSQuerierConfiguration(), randomSeed: UInt64) {
        self.configuration = configuration
        self.cache = MDNSCache(capacity: configuration.cacheCapacity)
        self.random = MDNSRandom(seed: randomSeed)
    }

    public mutating func takeOutgoing() -> [MDNSOutgoing] { self.outgoing.takeAll() }

    public mutating func takeEvents() -> [MDNSBrowseEvent] { self.events.takeAll() }

    /// The resolved instances currently known, by full name.
    public var services: [DNSName: MDNSResolvedService] { self.reported }

    /// Sets the links to query on and our own addresses (to tell our own queries from others').
    public mutating func setLinks(_ links: [MDNSLink], ownAddresses: Set<MDNSAddress>, now: NIODeadline) {
        let removedInterfaces = Set(self.links.map(\.interfaceIndex)).subtracting(links.map(\.interfaceIndex))
        let added = Set(links).subtracting(self.links)
        self.links = links
        self.ownAddresses = ownAddresses
        // RFC 6762 §10.3: forget what was learned on interfaces that went away.
        for index in removedInterfaces { self.cache.removeAll(interfaceIndex: index) }
        if !removedInterfaces.isEmpty { self.needsFullRefresh = true }
        // RFC 6762 §8, §13: a new link starts every question's series again.
        if !added.isEmpty {
            for key in Array(self.questions.keys) {
                let start = now + self.firstQueryDelay()
                self.questions[key]?.restart(at: start)
            }
        }
        self.refreshViews()
        self.tick(now: now)
    }

    /// Starts browsing for a service type (or subtype): a continuous PTR query (RFC 6762 §5.2, RFC 6763 §4).
    public mutating func browse(_ type: MDNSServiceType, now: NIODeadline) {
        self.startBrowse(type.browseName, now: now)
    }

    /// Starts browsing a PTR name: a type, `<sub>._sub.<type>`, or the type-enumeration name.
    public mutating func browse(name: DNSName, now: NIODeadline) {
        self.startBrowse(name, now: now)
    }

    /// The instances the cache holds PTR records for under a browse name.
    public func instances(browsing name: DNSName) -> Set<DNSName> {
        Set(
            self.cache.entries(named: name, type: .ptr).compactMap { entry in
                if case .ptr(let target) = entry.record.data { return target }
                return nil
            }
        )
    }

    /// The service types found by type enumeration.
    public var serviceTypes: Set<DNSName> { self.reportedTypes }

    /// Starts service-type enumeration (RFC 6763 §9).
    public mutating func browseServiceTypes(now: NIODeadline) {
        self.startBrowse(dnssdServicesName, now: now)
    }

    mutating func startBrowse(_ name: DNSName, now: NIODeadline) {
        guard !self.browses.contains(name) else { return }
        self.browses.insert(name)
        self.needsFullRefresh = true
        self.ask(QuestionKey(name: name, type: .ptr), continuous: true, now: now)
        self.refreshViews()
        self.tick(now: now)
    }

    /// Stops browsing a name; its instances are forgotten without events.
    public mutating func stopBrowsing(_ type: MDNSServiceType) {
        self.stopBrowsing(name: type.browseName)
    }

    /// Stops browsing a PTR name.
    public mutating func stopBrowsing(name: DNSName) {
        self.browses.remove(name)
        self.needsFullRefresh = true
        self.questions[QuestionKey(name: name, type: .ptr)] = nil
        self.refreshViews(emit: false)
    }

    /// Says that a service's records seem wrong (e.g. a connection failed): they are queried twice and
    /// flushed unless answered within ten seconds (RFC 6762 §10.4).
    public mutating func reconfirm(_ service: DNSName, now: NIODeadline) {
        for type in [DNSRecordType.srv, .txt] {
            self.cache.reconfirm(name: service, type: type, now: now)
            // RFC 6762 §10.4: at least two queries; this series ends after them.
            var state = QuestionState(isContinuous: false, nextAt: now)
            state.remaining = 2
            self.questions[QuestionKey(name: service, type: type)] = state
        }
        self.tick(now: now)
    }

    mutating func firstQueryDelay() -> TimeAmount {
        // RFC 6762 §5.2: the first query of a series goes after a random 20–120 ms.
        .milliseconds(Int64.random(in: 20...120, using: &self.random))
    }

    mutating func ask(_ key: QuestionKey, continuous: Bool, now: NIODeadline, immediately: Bool = false) {
        guard self.questions[key] == nil else {
            if immediately { self.questions[key]?.nextAt = now }
            return
        }
        let start = immediately ? now : now + self.firstQueryDelay()
        self.questions[key] = QuestionState(isContinuous: continuous, nextAt: start)
    }

    /// When ``tick(now:)`` must next be called.
    public var nextDeadline: NIODeadline? {
        [self.questions.values.map(\.nextAt).min(), self.cache.nextDeadline].compactMap { $0 }.min()
    }
}

struct QuestionKey: Hashable, Sendable {
    var name: DNSName
    var type: DNSRecordType
}

/// The schedule of one question (RFC 6762 §5.2: the first two at least one second apart, then doubling).
struct QuestionState: Sendable {
    /// A browse question runs until stopped; a resolve question stops once answered.
    var isContinuous: Bool
    var nextAt: NIODeadline
    var interval: TimeAmount = .seconds(1)
    var sent = 0
    /// Queries left in a bounded series (reconfirmation); nil for an open-ended one.
    var remaining: Int?

    mutating func restart(at time: NIODeadline) {
        self.nextAt = time
        self.interval = .seconds(1)
        self.sent = 0
    }

    mutating func markSent(now: NIODeadline, cap: TimeAmount) {
        self.sent += 1
        self.nextAt = now + self.interval
        self.interval = min(cap, self.interval * 2)
    }
}
