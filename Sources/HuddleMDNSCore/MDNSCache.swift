public import HuddleDNS
public import NIOCore

/// Records learned from other hosts, bounded, with the expiry rules of RFC 6762 §5.2, §10.1, §10.2, §10.5.
public struct MDNSCache: Sendable {
    /// A cached record and what the querier needs to know about it.
    public struct Entry: Sendable {
        public var record: DNSRecord
        /// The interface it was learned on (RFC 6762 §14; an IPv6 link-local address is only usable there).
        public var interfaceIndex: Int
        public var receivedAt: NIODeadline
        public var expiresAt: NIODeadline
        /// The refresh queries still to send, as fractions of the TTL (RFC 6762 §5.2: 80, 85, 90, 95 %).
        var refreshAt: [NIODeadline]
        /// Queries from other hosts this record should have answered, unanswered so far (RFC 6762 §10.5).
        var unansweredQueries = 0
        var firstUnansweredQuery: NIODeadline?

        /// The remaining TTL in whole seconds at `now`.
        public func remainingTTL(at now: NIODeadline) -> UInt32 {
            let nanos = max(0, (self.expiresAt - now).nanoseconds)
            return UInt32(min(Int64(UInt32.max), nanos / 1_000_000_000))
        }

        /// Whether more than half the record's TTL is left (RFC 6762 §7.1: only such records are known answers).
        public func hasMoreThanHalfItsTTL(at now: NIODeadline) -> Bool {
            UInt64(self.remainingTTL(at: now)) * 2 > UInt64(self.record.ttl)
        }
    }

    struct Key: Hashable, Sendable {
        var name: DNSName
        var type: DNSRecordType
        var data: DNSRData
        var interfaceIndex: Int
    }

    /// The most records kept; when full, the entry closest to expiry makes room (a LAN peer cannot make the
    /// cache grow without bound). python-zeroconf uses the same bound.
    public let capacity: Int
    private(set) var entries: [Key: Entry] = [:]
    /// The keys of each name and type, so look-ups cost nothing like a scan of the whole cache.
    private var index: [NameType: Set<Key>] = [:]

    public init(capacity: Int = 10_000) { self.capacity = capacity }

    public var count: Int { self.entries.count }

    /// All entries with a name and type (any interface).
    public func entries(named name: DNSName, type: DNSRecordType) -> [Entry] {
        guard let keys = self.index[NameType(name: name, type: type)] else { return [] }
        return keys.compactMap { self.entries[$0] }.sorted { $0.receivedAt < $1.receivedAt }
    }

    private mutating func store(_ key: Key, _ entry: Entry) {
        if self.entries.updateValue(entry, forKey: key) == nil {
            self.index[NameType(name: key.name, type: key.type), default: []].insert(key)
        }
    }

    private mutating func remove(_ key: Key) {
        guard self.entries.removeValue(forKey: key) != nil else { return }
        let nameType = NameType(name: key.name, type: key.type)
        self.index[nameType]?.remove(key)
        if self.index[nameType]?.isEmpty == true { self.index[nameType] = nil }
    }

    /// All entries.
    public var allEntries: [Entry] { Array(self.entries.values) }

    /// Adds the records of one received response, applying goodbye and cache-flush rules per packet.
    ///
    /// - RFC 6762 §10.1: a TTL of 0 keeps the record for one more second, so a cooperating responder can
    ///   rescue it.
    /// - RFC 6762 §10.2: a record with cache-flush set makes the other records of its name, type and class on
    ///   that interface expire in one second, unless they were received within the last second (the rest of
    ///   a multi-packet RRset). The new records themselves are never flushed.
    mutating func insert(
        _ records: [DNSRecord],
        interfaceIndex: Int,
        now: NIODeadline,
        refreshJitter: (Int) -> [Double]
    ) {
        var flushKeys = Set<FlushKey>()
        var insertedKeys = Set<Key>()
        for record in records where record.type != .opt && record.type != .nsec {
            let key = Key(name: record.name, type: record.type, data: record.data, interfaceIndex: interfaceIndex)
            insertedKeys.insert(key)
            if record.cacheFlush {
                flushKeys.insert(FlushKey(name: record.name, type: record.type, interfaceIndex: interfaceIndex))
            }
            if record.ttl == 0 {
                if var existing = self.entries[key] {
                    existing.expiresAt = min(existing.expiresAt, now + .seconds(1))
                    existing.refreshAt = []
                    self.entries[key] = existing
                }
                continue
            }
            let ttl = TimeAmount.seconds(Int64(record.ttl))
            let refresh = refreshJitter(4).enumerated().map { index, jitter in
                now + .nanoseconds(Int64(Double(ttl.nanoseconds) * (0.80 + 0.05 * Double(index) + jitter)))
            }
            self.makeRoom(for: key, now: now)
            self.store(
                key,
                Entry(
                    record: record,
                    interfaceIndex: interfaceIndex,
                    receivedAt: now,
                    expiresAt: now + ttl,
                    refreshAt: refresh
                )
            )
        }
        for flushKey in flushKeys {
            for key in self.index[NameType(name: flushKey.name, type: flushKey.type)] ?? []
            where key.interfaceIndex == flushKey.interfaceIndex && !insertedKeys.contains(key) {
                guard let entry = self.entries[key], entry.receivedAt < now - .seconds(1) else { continue }
                self.entries[key]?.expiresAt = min(entry.expiresAt, now + .seconds(1))
                self.entries[key]?.refreshAt = []
            }
        }
    }

    private mutating func makeRoom(for key: Key, now: NIODeadline) {
        guard self.entries[key] == nil, self.entries.count >= self.capacity else { return }
        if let victim = self.entries.min(by: { $0.value.expiresAt < $1.value.expiresAt })?.key {
            self.remove(victim)
        }
    }

    /// Removes expired entries and returns them.
    mutating func expire(now: NIODeadline) -> [Entry] {
        var expired: [Entry] = []
        for (key, entry) in self.entries where entry.expiresAt <= now {
            expired.append(entry)
            self.remove(key)
        }
        return expired
    }

    /// Whether any refresh query is due (most calls find none, and then do no other work).
    func hasDueRefresh(now: NIODeadline) -> Bool {
        self.entries.values.contains { entry in entry.refreshAt.first.map { $0 <= now } ?? false }
    }

    /// The refresh queries due now for records of interest, as (name, type, interface); each is sent once.
    mutating func dueRefreshes(now: NIODeadline, interest: (DNSRecord) -> Bool) -> [(DNSName, DNSRecordType, Int)] {
        guard self.hasDueRefresh(now: now) else { return [] }
        var due: [(DNSName, DNSRecordType, Int)] = []
        for (key, entry) in self.entries {
            guard let next = entry.refreshAt.first, next <= now else { continue }
            self.entries[key]?.refreshAt = entry.refreshAt.filter { $0 > now }
            if interest(entry.record) { due.append((key.name, key.type, key.interfaceIndex)) }
        }
        return due
    }

    /// The earliest refresh or expiry.
    var nextDeadline: NIODeadline? {
        var earliest: NIODeadline?
        for entry in self.entries.values {
            let due = min(entry.refreshAt.first ?? entry.expiresAt, entry.expiresAt)
            if earliest.map({ due < $0 }) ?? true { earliest = due }
        }
        return earliest
    }

    /// Notes a query from another host that a cached record answers (RFC 6762 §10.5, passive observation of
    /// failures); two unanswered within ten seconds flush it.
    mutating func noteQuery(_ question: DNSQuestion, interfaceIndex: Int, now: NIODeadline) {
        for (key, entry) in self.entries
        where key.interfaceIndex == interfaceIndex && question.isAnswered(by: entry.record) {
            var updated = entry
            if let first = updated.firstUnansweredQuery, first + .seconds(10) < now {
                updated.unansweredQueries = 0
                updated.firstUnansweredQuery = nil
            }
            updated.unansweredQueries += 1
            updated.firstUnansweredQuery = updated.firstUnansweredQuery ?? now
            if updated.unansweredQueries >= 2 {
                updated.expiresAt = min(updated.expiresAt, updated.firstUnansweredQuery! + .seconds(10))
            }
            self.entries[key] = updated
        }
    }

    /// Marks records as in doubt (RFC 6762 §10.4): unless seen again within ten seconds, they are flushed.
    mutating func reconfirm(name: DNSName, type: DNSRecordType, now: NIODeadline) {
        for key in self.index[NameType(name: name, type: type)] ?? [] {
            guard let entry = self.entries[key] else { continue }
            self.entries[key]?.expiresAt = min(entry.expiresAt, now + .seconds(10))
        }
    }

    /// Drops everything learned on an interface that went away (RFC 6762 §10.3).
    mutating func removeAll(interfaceIndex: Int) {
        for key in self.entries.keys where key.interfaceIndex == interfaceIndex { self.remove(key) }
    }

    struct NameType: Hashable, Sendable {
        var name: DNSName
        var type: DNSRecordType
    }

    private struct FlushKey: Hashable {
        var name: DNSName
        var type: DNSRecordType
        var interfaceIndex: Int
    }
}
