public import HuddleDNS
public import NIOCore

/// What a responder tells its user.
public enum MDNSResponderEvent: Hashable, Sendable {
    /// The service's name is ours: probing succeeded (RFC 6762 §8.1) and announcing began.
    case registered(MDNSServiceID, name: String)
    /// The service lost its name to another host and now probes for `to` (RFC 6762 §9).
    case renamed(MDNSServiceID, from: String, to: String)
    /// The host name was taken by another host; we now use `to`.
    case hostRenamed(from: String, to: String)
}

/// The mDNS responder as a pure state machine (RFC 6762 §6–§10, RFC 6763).
///
/// It owns the host's address records and the registered services, probes for their names, announces them,
/// answers queries with the RFC's delays and suppressions, defends its names, renames on conflict, and says
/// goodbye. It opens no socket and reads no clock: every entry point takes `now`, datagrams to send collect in
/// ``takeOutgoing()``, events in ``takeEvents()``, and ``nextDeadline`` says when ``tick(now:)`` is due.
public struct MDNSResponder: Sendable {
    public let configuration: MDNSResponderConfiguration
    /// The host label in use (without `.local`), after any renames.
    public internal(set) var hostLabel: String
    var interfaces: [Int: MDNSInterface] = [:]
    var families: Set<MDNSFamily>
    var services: [MDNSServiceID: ServiceState] = [:]
    var host: GroupState
    var nextServiceID = 1
    var random: MDNSRandom
    var outgoing: [MDNSOutgoing] = []
    var events: [MDNSResponderEvent] = []
    var pending: [MDNSOutgoing.Destination: PendingAnswer] = [:]
    var truncatedQueries: [MDNSAddress: TruncatedQuery] = [:]
    var lastMulticast: [RecordOnLink: NIODeadline] = [:]
    var goodbyes: [ScheduledGoodbye] = []
    var conflictTimes: [NIODeadline] = []
    /// Set after too many conflicts in a row; every further probe attempt then waits (RFC 6762 §8.1).
    var conflictBackOff = false

    /// Makes a responder for a host label (e.g. `myhost-huddle`), with a seed for its random delays.
    ///
    /// - Throws: ``MDNSError`` with code `.invalidHostName` when the label is empty, too long or holds a dot.
    public init(
        hostLabel: String,
        families: Set<MDNSFamily> = [.v4, .v6],
        configuration: MDNSResponderConfiguration = MDNSResponderConfiguration(),
        randomSeed: UInt64,
        now: NIODeadline
    ) throws {
        guard (1...63).contains(hostLabel.utf8.count), !hostLabel.contains("."),
            !hostLabel.utf8.contains(where: { $0 < 0x20 })
        else {
            throw MDNSError(.invalidHostName, "host label '\(hostLabel)' must be 1 to 63 bytes without dots")
        }
        self.configuration = configuration
        self.hostLabel = hostLabel
        self.families = families
        self.random = MDNSRandom(seed: randomSeed)
        self.host = GroupState(phase: .idle)
    }

    /// The host name in use, `<label>.local.`.
    public var hostName: DNSName { DNSName(uncheckedLabels: [Array(self.hostLabel.utf8), Array("local".utf8)]) }

    /// The current registrations, with the names in use after any renames.
    public var registrations: [MDNSServiceID: MDNSServiceRegistration] { self.services.mapValues(\.registration) }

    /// Whether the service has finished probing and owns its name.
    public func isEstablished(_ id: MDNSServiceID) -> Bool { self.services[id]?.group.phase.ownsName ?? false }

    /// Datagrams to send now, in order; the caller sends them and the list empties.
    public mutating func takeOutgoing() -> [MDNSOutgoing] { self.outgoing.takeAll() }

    /// Events since the last call.
    public mutating func takeEvents() -> [MDNSResponderEvent] { self.events.takeAll() }

    /// Registers a service: it is probed for, then announced (RFC 6762 §8).
    public mutating func register(_ registration: MDNSServiceRegistration, now: NIODeadline) -> MDNSServiceID {
        let id = MDNSServiceID(rawValue: self.nextServiceID)
        self.nextServiceID += 1
        // Names registered together probe in the same packets and are announced together: a service joins a
        // probe series that has not started yet (the host's, after the first registration).
        var start = now + self.randomDelay(upTo: self.configuration.maxInitialProbeDelay)
        if case .waiting(let until) = self.host.phase, until >= now { start = until }
        self.services[id] = ServiceState(registration: registration, group: GroupState(phase: .waiting(until: start)))
        if case .idle = self.host.phase { self.host.phase = .waiting(until: start) }
        self.tick(now: now)
        return id
    }

    /// Withdraws a service, sending goodbyes for its records if they were announced (RFC 6762 §10.1).
    public mutating func unregister(_ id: MDNSServiceID, now: NIODeadline) {
        guard let state = self.services.removeValue(forKey: id) else { return }
        let instance = state.registration.instanceDNSName
        // Answers on their way must not bring the service back after its goodbye (RFC 6762 §10.1).
        self.dropPending { $0.name == instance || $0.data == .ptr(instance) }
        if state.group.phase.ownsName {
            var records: [(DNSRecord, MDNSLink)] = []
            for link in self.links {
                // A shared record another service still has (the type-enumeration PTR) gets no goodbye.
                let stillOwned = Set(self.answerableRecords(on: link).map(\.record))
                for owned in self.serviceRecords(state, on: link) where !stillOwned.contains(owned.record) {
                    records.append((owned.record, link))
                }
            }
            self.scheduleGoodbye(records, now: now)
        }
        self.tick(now: now)
    }

    /// Changes a service's TXT data and port, re-announcing the changed records without probing (RFC 6762 §8.4).
    public mutating func update(_ id: MDNSServiceID, txt: MDNSTXTRecord? = nil, port: UInt16? = nil, now: NIODeadline) {
        guard var state = self.services[id] else { return }
        if let txt { state.registration.txt = txt }
        if let port { state.registration.port = port }
        // Delayed answers still hold the old data; the announcement carries the new (RFC 6762 §8.4).
        let instance = state.registration.instanceDNSName
        self.dropPending { $0.name == instance && ($0.type == .srv || $0.type == .txt) }
        if state.group.phase.ownsName {
            // RFC 6762 §8.4: at most ten updates a minute go out; later ones wait (answers carry the new data).
            state.updateTimes = state.updateTimes.filter { $0 > now - .seconds(60) }
            let limit = self.configuration.maxUpdatesPerMinute
            let next =
                state.updateTimes.count >= limit
                ? state.updateTimes[state.updateTimes.count - limit] + .seconds(60) : now
            state.updateTimes.append(next)
            state.group.phase = .announcing(sent: 0, next: next)
        }
        self.services[id] = state
        self.tick(now: now)
    }

    /// Replaces the set of interfaces and their addresses (RFC 6762 §8, §10.2, §13).
    ///
    /// Addresses that went away on a remaining interface get goodbyes; any change makes every name probe and
    /// announce again, so peers learn the new addresses at once.
    public mutating func setInterfaces(_ interfaces: [MDNSInterface], now: NIODeadline) {
        let updated = Dictionary(interfaces.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
        guard updated != self.interfaces else { return }
        var goodbye: [(DNSRecord, MDNSLink)] = []
        if self.host.phase.ownsName {
            for (index, old) in self.interfaces {
                guard let new = updated[index] else { continue }
                let oldRecords = self.addressRecords(of: old)
                let newRecords = Set(self.addressRecords(of: new).map(\.data))
                for link in self.links(of: old) {
                    goodbye += oldRecords.filter { !newRecords.contains($0.data) }.map { ($0, link) }
                }
            }
        }
        self.interfaces = updated
        self.scheduleGoodbye(goodbye, now: now)
        self.restartAll(now: now)
        self.tick(now: now)
    }

    /// Sends goodbyes for everything and forgets all services (RFC 6762 §10.1); call ``tick(now:)`` until
    /// ``nextDeadline`` is nil to send all goodbye packets.
    public mutating func shutdown(now: NIODeadline) {
        var records: [(DNSRecord, MDNSLink)] = []
        for link in self.links {
            for state in self.services.values where state.group.phase.ownsName {
                records += self.serviceRecords(state, on: link).map { ($0.record, link) }
            }
            if self.host.phase.ownsName { records += self.hostRecords(on: link).map { ($0.record, link) } }
        }
        self.services = [:]
        self.host.phase = .idle
        self.pending = [:]
        self.truncatedQueries = [:]
        self.scheduleGoodbye(records, now: now)
        self.tick(now: now)
    }

    /// Removes records from the answers waiting to be sent.
    mutating func dropPending(where predicate: (DNSRecord) -> Bool) {
        self.pending = self.pending.compactMapValues { pending in
            var pending = pending
            pending.records.removeAll(where: predicate)
            return pending.records.isEmpty ? nil : pending
        }
    }

    /// The links (interface × family) on which the responder runs.
    var links: [MDNSLink] {
        self.interfaces.values.sorted { $0.index < $1.index }.flatMap { self.links(of: $0) }
    }

    func links(of interface: MDNSInterface) -> [MDNSLink] {
        var result: [MDNSLink] = []
        if self.families.contains(.v4), !interface.ipv4.isEmpty {
            result.append(MDNSLink(interfaceIndex: interface.index, family: .v4))
        }
        if self.families.contains(.v6), !interface.ipv6.isEmpty {
            result.append(MDNSLink(interfaceIndex: interface.index, family: .v6))
        }
        return result
    }

    mutating func randomDelay(upTo maximum: TimeAmount) -> TimeAmount {
        guard maximum.nanoseconds > 0 else { return .zero }
        return .nanoseconds(Int64.random(in: 0...maximum.nanoseconds, using: &self.random))
    }

    mutating func randomDelay(from minimum: TimeAmount, to maximum: TimeAmount) -> TimeAmount {
        minimum + self.randomDelay(upTo: maximum - minimum)
    }
}

/// The probe/announce life of one unique RRset owner: the host, or a service instance (RFC 6762 §8).
struct GroupState: Sendable {
    enum Phase: Sendable {
        /// Nothing to do (the host before any service, or after shutdown).
        case idle
        /// Waiting to probe: the initial random delay, a lost tie-break (1 s) or the conflict back-off (5 s).
        case waiting(until: NIODeadline)
        /// `sent` probes sent; the next one (or the decision) is due at `next`.
        case probing(sent: Int, next: NIODeadline)
        /// The name is ours; `sent` announcements sent, the next due at `next`.
        case announcing(sent: Int, next: NIODeadline)
        /// Announced; answers and defends.
        case established

        var ownsName: Bool {
            switch self {
            case .announcing, .established: true
            case .idle, .waiting, .probing: false
            }
        }

        var isProbing: Bool {
            if case .probing = self { return true }
            return false
        }

        var deadline: NIODeadline? {
            switch self {
            case .waiting(let until): until
            case .probing(_, let next), .announcing(_, let next): next
            case .idle, .established: nil
            }
        }
    }

    var phase: Phase
}

struct ServiceState: Sendable {
    var registration: MDNSServiceRegistration
    var group: GroupState
    /// When recent updates were announced, for the limit of RFC 6762 §8.4.
    var updateTimes: [NIODeadline] = []
}

/// Which unique RRset owner a piece of state belongs to.
enum GroupKey: Hashable, Sendable {
    case host
    case service(MDNSServiceID)
}

/// A record of ours with whether it is unique (probed, sent with cache-flush) or shared (RFC 6762 §2).
struct OwnedRecord: Hashable, Sendable {
    var record: DNSRecord
    var isUnique: Bool
}

/// A record's identity on one link, for the per-record multicast rate limit (RFC 6762 §6).
struct RecordOnLink: Hashable, Sendable {
    var name: DNSName
    var data: DNSRData
    var link: MDNSLink
}

/// Answers waiting for their delay to pass (RFC 6762 §6, §6.4).
struct PendingAnswer: Sendable {
    var dueAt: NIODeadline
    var records: [DNSRecord]
    /// A defence of a probed name may be multicast 250 ms after the last one instead of 1 s (RFC 6762 §6).
    var isProbeDefence: Bool
}

/// A query with the TC bit whose known-answer continuation packets are still arriving (RFC 6762 §7.2).
struct TruncatedQuery: Sendable {
    var incoming: MDNSIncoming
    var knownAnswers: [DNSRecord]
    var packets: Int
    var dueAt: NIODeadline
}

struct ScheduledGoodbye: Sendable {
    var dueAt: NIODeadline
    var remaining: Int
    var records: [DNSRecord]
    var link: MDNSLink
}
