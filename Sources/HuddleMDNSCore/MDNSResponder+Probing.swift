import HuddleDNS
public import NIOCore

extension MDNSResponder {
    /// When ``tick(now:)`` must next be called, or nil when nothing is scheduled.
    public var nextDeadline: NIODeadline? {
        var deadlines: [NIODeadline] = self.groupKeys.compactMap { self.phase(of: $0).deadline }
        deadlines += self.pending.values.map(\.dueAt)
        deadlines += self.truncatedQueries.values.map(\.dueAt)
        deadlines += self.goodbyes.map(\.dueAt)
        return deadlines.min()
    }

    /// Runs everything that is due: probes, announcements, delayed answers, goodbyes.
    public mutating func tick(now: NIODeadline) {
        self.advanceGroups(now: now)
        self.flushTruncatedQueries(now: now)
        self.flushPendingAnswers(now: now)
        self.flushGoodbyes(now: now)
        self.pruneRateLimitTable(now: now)
    }

    /// Probes every name again (after a network change or a host rename), RFC 6762 §8, §13.
    mutating func restartAll(now: NIODeadline) {
        guard !self.services.isEmpty else { return }
        let delay = self.randomDelay(upTo: self.configuration.maxInitialProbeDelay)
        for group in self.groupKeys { self.setPhase(.waiting(until: now + delay), of: group) }
    }

    /// Moves each group through waiting → probing → announcing → established, sending probes and
    /// announcements for all groups due at once in shared packets.
    mutating func advanceGroups(now: NIODeadline) {
        var probing: [(GroupKey, Bool)] = []
        var announcing: [GroupKey] = []
        for group in self.groupKeys {
            switch self.phase(of: group) {
            case .waiting(let until) where until <= now:
                probing.append((group, true))
                self.setPhase(.probing(sent: 1, next: now + self.configuration.probeInterval), of: group)
            case .probing(let sent, let next) where next <= now:
                if sent < self.configuration.probeCount {
                    probing.append((group, false))
                    self.setPhase(.probing(sent: sent + 1, next: now + self.configuration.probeInterval), of: group)
                } else {
                    // RFC 6762 §8.1: no conflict 250 ms after the last probe: the name is ours.
                    self.setPhase(.announcing(sent: 0, next: now), of: group)
                    self.conflictBackOff = false
                    if case .service(let id) = group, let name = self.services[id]?.registration.instanceName {
                        self.events.append(.registered(id, name: name))
                    }
                    announcing.append(group)
                }
            case .announcing(_, let next) where next <= now:
                announcing.append(group)
            default:
                break
            }
        }
        // A service announces only once the host name it points at is settled.
        let hostSettled = self.host.phase.ownsName
        for group in announcing where group != .host && !hostSettled {
            if case .announcing(let sent, _) = self.phase(of: group) {
                let retry = self.host.phase.deadline ?? now + self.configuration.probeInterval
                self.setPhase(.announcing(sent: sent, next: max(retry, now + .milliseconds(10))), of: group)
            }
        }
        announcing = announcing.filter { $0 == .host || hostSettled }
        for group in announcing {
            guard case .announcing(let sent, _) = self.phase(of: group) else { continue }
            if sent + 1 >= self.configuration.announceCount {
                self.setPhase(.established, of: group)
            } else {
                // RFC 6762 §8.3: one second apart, then doubling.
                self.setPhase(.announcing(sent: sent + 1, next: now + .seconds(1 << Int64(sent))), of: group)
            }
        }
        for link in self.links {
            self.sendProbes(probing, on: link)
            self.sendAnnouncement(announcing, on: link, now: now)
        }
    }

    /// A probe: a question of type ANY for each name, and the proposed records in the authority section
    /// (RFC 6762 §8.1, §8.2). The first probe asks for a unicast reply; later ones are QM, so that a
    /// defence also reaches every other stack sharing port 5353 on this host.
    mutating func sendProbes(_ groups: [(GroupKey, Bool)], on link: MDNSLink) {
        let maxSize = link.family == .v4 ? self.configuration.maxIPv4Payload : self.configuration.maxIPv6Payload
        var packet = DNSMessage(isResponse: false)
        for (group, isFirst) in groups {
            guard let name = self.probeName(of: group) else { continue }
            let question = DNSQuestion(name: name, type: .any, unicastResponse: isFirst)
            let proposed = self.records(of: group, on: link).filter(\.isUnique).map(\.record)
            var candidate = packet
            candidate.questions.append(question)
            candidate.authorities += proposed
            // RFC 6762 §17: a probe fits the link's MTU; a name's question travels with its own records.
            if !packet.questions.isEmpty, candidate.encoded().readableBytes > maxSize {
                self.outgoing.append(MDNSOutgoing(message: packet, destination: .multicast(link)))
                candidate = DNSMessage(isResponse: false, questions: [question], authorities: proposed)
            }
            packet = candidate
        }
        guard !packet.questions.isEmpty else { return }
        self.outgoing.append(MDNSOutgoing(message: packet, destination: .multicast(link)))
    }

    /// An unsolicited response with all of the groups' records, unique ones with cache-flush (RFC 6762 §8.3).
    mutating func sendAnnouncement(_ groups: [GroupKey], on link: MDNSLink, now: NIODeadline) {
        var records: [DNSRecord] = []
        for group in groups {
            for owned in self.records(of: group, on: link) where !records.contains(owned.record) {
                records.append(owned.record)
            }
        }
        self.multicast(records, additionals: [], on: link, now: now)
    }

    /// Handles a conflict for a group (RFC 6762 §9): rename and probe again, slowing down after too many.
    mutating func conflict(_ group: GroupKey, now: NIODeadline) {
        self.conflictTimes = self.conflictTimes.filter { $0 > now - self.configuration.conflictWindow } + [now]
        // RFC 6762 §8.1: after 15 conflicts within 10 s, wait 5 s before each further attempt, until a name is
        // won.
        if self.conflictTimes.count >= self.configuration.conflictLimit { self.conflictBackOff = true }
        let start = self.conflictBackOff ? now + self.configuration.conflictBackoff : now
        switch group {
        case .host:
            let old = self.hostLabel
            self.hostLabel = MDNSServiceRegistration.nextHostLabel(after: old)
            self.events.append(.hostRenamed(from: old, to: self.hostLabel))
            for other in self.groupKeys { self.setPhase(.waiting(until: start), of: other) }
        case .service(let id):
            guard var state = self.services[id] else { return }
            let old = state.registration.instanceName
            state.registration.instanceName = MDNSServiceRegistration.nextInstanceName(after: old)
            state.group.phase = .waiting(until: start)
            self.services[id] = state
            self.events.append(.renamed(id, from: old, to: state.registration.instanceName))
            let instance = DNSName(
                uncheckedLabels: [Array(old.utf8)] + state.registration.type.name.labels
            )
            self.dropPending { $0.name == instance || $0.data == .ptr(instance) }
            return
        }
        self.pending = [:]
    }

    /// Simultaneous-probe tie-break (RFC 6762 §8.2): compares our proposed records with another host's,
    /// returns true when we lose (their records sort later).
    func losesTieBreak(ours: [DNSRecord], theirs: [DNSRecord]) -> Bool {
        func key(_ record: DNSRecord) -> [UInt8] {
            let header = [record.recordClass.rawValue, record.type.rawValue].flatMap {
                [UInt8($0 >> 8), UInt8($0 & 0xFF)]
            }
            return header + record.data.canonicalBytes
        }
        let mine = ours.map(key).sorted { $0.lexicographicallyPrecedes($1) }
        let other = theirs.map(key).sorted { $0.lexicographicallyPrecedes($1) }
        for (a, b) in zip(mine, other) where a != b { return a.lexicographicallyPrecedes(b) }
        return mine.count < other.count
    }

    /// Goodbyes: the records with TTL 0, sent ``MDNSResponderConfiguration/goodbyeCount`` times.
    mutating func scheduleGoodbye(_ records: [(DNSRecord, MDNSLink)], now: NIODeadline) {
        let byLink = Dictionary(grouping: records, by: \.1)
        for (link, entries) in byLink.sorted(by: { $0.key.description < $1.key.description }) {
            let zeroed = entries.map { entry in
                var record = entry.0
                record.ttl = 0
                return record
            }
            self.goodbyes.append(
                ScheduledGoodbye(dueAt: now, remaining: self.configuration.goodbyeCount, records: zeroed, link: link)
            )
        }
    }

    mutating func flushGoodbyes(now: NIODeadline) {
        var kept: [ScheduledGoodbye] = []
        for var goodbye in self.goodbyes {
            if goodbye.dueAt <= now {
                self.emitPackets(answers: goodbye.records, additionals: [], to: .multicast(goodbye.link))
                goodbye.remaining -= 1
                goodbye.dueAt = now + self.configuration.goodbyeInterval
            }
            if goodbye.remaining > 0 { kept.append(goodbye) }
        }
        self.goodbyes = kept
    }

    mutating func pruneRateLimitTable(now: NIODeadline) {
        guard self.lastMulticast.count > 4096 else { return }
        let horizon = now - .seconds(Int64(self.configuration.otherRecordTTL))
        self.lastMulticast = self.lastMulticast.filter { $0.value > horizon }
    }
}
