import HuddleDNS
public import NIOCore

extension MDNSResponder {
    /// Handles a datagram received on a link: answers queries, detects conflicts, defends names.
    public mutating func received(_ incoming: MDNSIncoming, now: NIODeadline) {
        let message = incoming.message
        // RFC 6762 §18.3, §18.11: messages with a non-zero OPCODE or RCODE are silently ignored.
        guard message.opcode == 0, message.rcode == 0 else { return }
        if message.isResponse {
            self.receivedResponse(incoming, now: now)
        } else {
            self.receivedQuery(incoming, now: now)
        }
        self.tick(now: now)
    }

    // MARK: Queries

    mutating func receivedQuery(_ incoming: MDNSIncoming, now: NIODeadline) {
        guard let interface = self.interfaces[incoming.link.interfaceIndex] else { return }
        // RFC 6762 §11, §5.5: a query sent to our unicast address must come from an on-link source.
        if !incoming.wasMulticast, !interface.isOnLink(incoming.source.address) { return }
        let message = incoming.message
        if incoming.source.port != mdnsPort {
            self.answerLegacy(incoming)
            return
        }
        let source = incoming.source.address
        if message.questions.isEmpty {
            // A continuation of a truncated known-answer list (RFC 6762 §7.2).
            guard var truncated = self.truncatedQueries[source],
                truncated.packets < self.configuration.maxTruncatedPacketsPerSender
            else { return }
            truncated.knownAnswers += message.answers
            truncated.packets += 1
            if message.truncated { truncated.dueAt = now + self.truncationDelay() }
            self.truncatedQueries[source] = truncated
            return
        }
        if message.truncated {
            guard
                self.truncatedQueries.count < self.configuration.maxTruncatedSenders
                    || self.truncatedQueries[source] != nil
            else { return }
            self.truncatedQueries[source] = TruncatedQuery(
                incoming: incoming,
                knownAnswers: message.answers,
                packets: 1,
                dueAt: now + self.truncationDelay()
            )
            return
        }
        self.answer(incoming, knownAnswers: message.answers, waitedForKnownAnswers: false, now: now)
    }

    /// RFC 6762 §7.2: wait 400–500 ms for the rest of a truncated known-answer list.
    mutating func truncationDelay() -> TimeAmount {
        self.randomDelay(from: .milliseconds(400), to: .milliseconds(500))
    }

    mutating func flushTruncatedQueries(now: NIODeadline) {
        for (source, truncated) in self.truncatedQueries where truncated.dueAt <= now {
            self.truncatedQueries[source] = nil
            self.answer(truncated.incoming, knownAnswers: truncated.knownAnswers, waitedForKnownAnswers: true, now: now)
        }
    }

    /// Answers a multicast-style query (RFC 6762 §6, §7.1, §8.2, §5.4).
    mutating func answer(
        _ incoming: MDNSIncoming,
        knownAnswers: [DNSRecord],
        waitedForKnownAnswers: Bool,
        now: NIODeadline
    ) {
        let message = incoming.message
        let link = incoming.link
        guard let interface = self.interfaces[link.interfaceIndex] else { return }
        self.checkSimultaneousProbe(message, on: link, now: now)

        let owned = self.answerableRecords(on: link)
        // RFC 6762 §6, §8.2: every service points at the host name. While that name is probed again (a
        // simultaneous probe lost, a conflict), it may turn out to be another host's, so the services are not
        // answered for; a probe for one of their names is still defended.
        let hostSettled = self.host.phase.ownsName
        let sourceOnLink = interface.isOnLink(incoming.source.address)
        var multicastAnswers: [DNSRecord] = []
        var unicastAnswers: [DNSRecord] = []
        var allUnique = true
        var isDefence = false
        for question in message.questions {
            let proposed = message.authorities.filter { $0.name == question.name }
            guard hostSettled || !proposed.isEmpty else { continue }
            var matching = owned.filter { question.isAnswered(by: $0.record) }
            if matching.isEmpty, question.type != .any, let nsec = self.nsec(for: question.name, on: link) {
                matching = [OwnedRecord(record: nsec, isUnique: true)]
            }
            guard !matching.isEmpty else { continue }
            if !proposed.isEmpty {
                // A probe for a name we hold: defend at once, unless every proposed record is one of ours.
                guard matching.contains(where: \.isUnique), proposed.contains(where: { !self.isOwnRecordData($0) })
                else { continue }
                isDefence = true
            }
            // RFC 6762 §7.1: known-answer suppression at half the TTL.
            matching = matching.filter { candidate in
                !knownAnswers.contains { $0.sameRecord(as: candidate.record) && $0.ttl >= candidate.record.ttl / 2 }
            }
            allUnique = allUnique && matching.allSatisfy(\.isUnique)
            // RFC 6762 §5.4, §5.5, §11: unicast when asked and the source is on-link, unless the record has not
            // been multicast on this link within a quarter of its TTL.
            let wantsUnicast = (question.unicastResponse || !incoming.wasMulticast) && sourceOnLink
            for candidate in matching {
                let record = candidate.record
                if wantsUnicast, self.wasMulticastRecently(record, on: link, within: record.ttl / 4, now: now) {
                    if !unicastAnswers.contains(record) { unicastAnswers.append(record) }
                } else if !multicastAnswers.contains(record) {
                    multicastAnswers.append(record)
                }
            }
        }
        // RFC 6762 §6: unique answers to a single question go at once; shared ones after 20–120 ms.
        let immediate = isDefence || waitedForKnownAnswers || (allUnique && message.questions.count == 1)
        let delay = immediate ? TimeAmount.zero : self.randomDelay(from: .milliseconds(20), to: .milliseconds(120))
        self.schedule(multicastAnswers, to: .multicast(link), at: now + delay, isProbeDefence: isDefence)
        let unicastTarget = MDNSEndpoint(address: incoming.source.address, port: mdnsPort)
        self.schedule(unicastAnswers, to: .unicast(unicastTarget, link), at: now + delay, isProbeDefence: isDefence)
    }

    /// RFC 6762 §8.2: another host probing for a name we are probing for; the lexicographically later
    /// record set wins, the loser waits one second and probes again.
    mutating func checkSimultaneousProbe(_ message: DNSMessage, on link: MDNSLink, now: NIODeadline) {
        guard !message.authorities.isEmpty else { return }
        for group in self.groupKeys where self.phase(of: group).isProbing {
            guard let name = self.probeName(of: group), message.questions.contains(where: { $0.name == name })
            else { continue }
            let theirs = message.authorities.filter { $0.name == name }
            guard theirs.contains(where: { !self.isOwnRecordData($0) }) else { continue }
            let ours = self.records(of: group, on: link).filter { $0.isUnique && $0.record.name == name }
            if self.losesTieBreak(ours: ours.map(\.record), theirs: theirs) {
                self.setPhase(.waiting(until: now + .seconds(1)), of: group)
            }
        }
    }

    /// Legacy unicast (RFC 6762 §6.7): reply to the sender's port with its ID and questions, TTLs of at most
    /// 10 s, no cache-flush bits and no compressed SRV targets; never multicast.
    mutating func answerLegacy(_ incoming: MDNSIncoming) {
        guard self.host.phase.ownsName else { return }  // as in answer(_:knownAnswers:waitedForKnownAnswers:now:)
        let link = incoming.link
        let owned = self.answerableRecords(on: link).map(\.record)
        var answers: [DNSRecord] = []
        for question in incoming.message.questions {
            for record in owned where question.isAnswered(by: record) && !answers.contains(record) {
                answers.append(record)
            }
        }
        guard !answers.isEmpty else { return }
        func legacy(_ record: DNSRecord) -> DNSRecord {
            var record = record
            record.ttl = min(record.ttl, 10)
            record.cacheFlush = false
            return record
        }
        let additionals = self.additionals(for: answers, on: link).map(legacy)
        self.emitPackets(
            answers: answers.map(legacy),
            additionals: additionals,
            to: .unicast(incoming.source, link),
            legacyQuery: incoming.message
        )
    }

    // MARK: Responses

    mutating func receivedResponse(_ incoming: MDNSIncoming, now: NIODeadline) {
        // RFC 6762 §6, §11: responses not sent from port 5353 are ignored.
        guard incoming.source.port == mdnsPort else { return }
        let link = incoming.link
        let records = incoming.message.answers + incoming.message.additionals
        var conflicted = Set<GroupKey>()
        // A goodbye (TTL 0) claims nothing, so it is never a conflict: it may be our own, looped back after an
        // address went away.
        for record in records where record.ttl > 0 && !self.isOwnRecordData(record) {
            for group in self.groupKeys where !conflicted.contains(group) {
                let phase = self.phase(of: group)
                guard let name = self.probeName(of: group), record.name == name else { continue }
                if phase.isProbing {
                    // RFC 6762 §8.1: while probing, any record with the name is a conflict.
                    conflicted.insert(group)
                } else if phase.ownsName {
                    // RFC 6762 §9: same name, type and class as a unique record of ours, other data.
                    let clash = self.records(of: group, on: link).contains {
                        $0.isUnique && $0.record.type == record.type && $0.record.recordClass == record.recordClass
                    }
                    if clash { conflicted.insert(group) }
                }
            }
        }
        for group in conflicted.sorted(by: { $0.sortKey < $1.sortKey }) {
            if self.phase(of: group).isProbing {
                self.conflict(group, now: now)
            } else {
                // Reset to probing: if the other host holds the name it will defend, and we rename then.
                self.setPhase(.probing(sent: 0, next: now), of: group)
            }
        }
        self.correctTTLs(records, on: link, now: now)
        self.suppressDuplicateAnswers(records, on: link)
    }

    /// RFC 6762 §6.6, §10.1: one of our records seen with less than half its TTL (or a goodbye for it from
    /// elsewhere) is announced again at once.
    mutating func correctTTLs(_ records: [DNSRecord], on link: MDNSLink, now: NIODeadline) {
        let owned = self.answerableRecords(on: link).map(\.record)
        let stale = owned.filter { mine in records.contains { $0.sameRecord(as: mine) && $0.ttl < mine.ttl / 2 } }
        self.schedule(stale, to: .multicast(link), at: now, isProbeDefence: false)
    }

    /// RFC 6762 §7.4: another host just multicast an answer we were about to give, with at least our TTL.
    mutating func suppressDuplicateAnswers(_ records: [DNSRecord], on link: MDNSLink) {
        guard var pending = self.pending[.multicast(link)], !pending.isProbeDefence else { return }
        pending.records.removeAll { mine in records.contains { $0.sameRecord(as: mine) && $0.ttl >= mine.ttl } }
        self.pending[.multicast(link)] = pending.records.isEmpty ? nil : pending
    }

    // MARK: Sending

    mutating func schedule(
        _ records: [DNSRecord],
        to destination: MDNSOutgoing.Destination,
        at dueAt: NIODeadline,
        isProbeDefence: Bool
    ) {
        guard !records.isEmpty else { return }
        if var existing = self.pending[destination] {
            // RFC 6762 §6.4: answers on their way are merged into one packet.
            for record in records where !existing.records.contains(record) { existing.records.append(record) }
            existing.dueAt = min(existing.dueAt, dueAt)
            existing.isProbeDefence = existing.isProbeDefence || isProbeDefence
            self.pending[destination] = existing
        } else {
            self.pending[destination] = PendingAnswer(dueAt: dueAt, records: records, isProbeDefence: isProbeDefence)
        }
    }

    mutating func flushPendingAnswers(now: NIODeadline) {
        for (destination, pending) in self.pending where pending.dueAt <= now {
            self.pending[destination] = nil
            switch destination {
            case .multicast(let link):
                // RFC 6762 §6: a record goes out by multicast at most once a second per link (250 ms when
                // defending a probed name). Throttled answers are delayed, never dropped.
                let gap: TimeAmount = pending.isProbeDefence ? .milliseconds(250) : .seconds(1)
                var ready: [DNSRecord] = []
                var later: NIODeadline?
                for record in pending.records {
                    let last = self.lastMulticast[RecordOnLink(name: record.name, data: record.data, link: link)]
                    if let last, last + gap > now {
                        later = min(later ?? last + gap, last + gap)
                    } else {
                        ready.append(record)
                    }
                }
                self.multicast(ready, additionals: self.additionals(for: ready, on: link), on: link, now: now)
                let delayed = pending.records.filter { !ready.contains($0) }
                if let later, !delayed.isEmpty {
                    self.schedule(delayed, to: destination, at: later, isProbeDefence: pending.isProbeDefence)
                }
            case .unicast(_, let link):
                self.emitPackets(
                    answers: pending.records,
                    additionals: self.additionals(for: pending.records, on: link),
                    to: destination
                )
            }
        }
    }

    func wasMulticastRecently(_ record: DNSRecord, on link: MDNSLink, within seconds: UInt32, now: NIODeadline) -> Bool
    {
        guard let last = self.lastMulticast[RecordOnLink(name: record.name, data: record.data, link: link)] else {
            return false
        }
        return last + .seconds(Int64(seconds)) > now
    }

    mutating func multicast(_ records: [DNSRecord], additionals: [DNSRecord], on link: MDNSLink, now: NIODeadline) {
        guard !records.isEmpty else { return }
        for record in records {
            self.lastMulticast[RecordOnLink(name: record.name, data: record.data, link: link)] = now
        }
        self.emitPackets(answers: records, additionals: additionals, to: .multicast(link))
    }

    /// Splits answers into packets that fit the link's MTU (RFC 6762 §17); a record too large for one packet
    /// goes alone. Additional records fill what room is left in the last packet. A response never has
    /// questions (RFC 6762 §6) and never consists of additional records alone (Avahi drops those).
    mutating func emitPackets(
        answers: [DNSRecord],
        additionals: [DNSRecord],
        to destination: MDNSOutgoing.Destination,
        legacyQuery: DNSMessage? = nil
    ) {
        guard !answers.isEmpty else { return }
        let link: MDNSLink
        switch destination {
        case .multicast(let l), .unicast(_, let l): link = l
        }
        let maxSize = link.family == .v4 ? self.configuration.maxIPv4Payload : self.configuration.maxIPv6Payload
        let questions = legacyQuery?.questions ?? []
        func newBuilder() -> DNSMessageBuilder {
            var builder = DNSMessageBuilder(
                id: legacyQuery?.id ?? 0,
                flags: 0x8400,
                maxSize: maxSize,
                compressSRVTarget: legacyQuery == nil
            )
            for question in questions { _ = builder.append(question) }
            return builder
        }
        func message(_ answers: [DNSRecord], _ additionals: [DNSRecord]) -> MDNSOutgoing {
            var message = DNSMessage.response(answers: answers, additionals: additionals)
            message.id = legacyQuery?.id ?? 0
            message.questions = questions
            return MDNSOutgoing(message: message, destination: destination, compressSRVTarget: legacyQuery == nil)
        }
        var builder = newBuilder()
        var current: [DNSRecord] = []
        for record in answers {
            if builder.append(record, section: .answer) {
                current.append(record)
                continue
            }
            if !current.isEmpty { self.outgoing.append(message(current, [])) }
            builder = newBuilder()
            current = []
            if builder.append(record, section: .answer) {
                current.append(record)
            } else {
                self.outgoing.append(message([record], []))
            }
        }
        guard !current.isEmpty else { return }
        var extra: [DNSRecord] = []
        for record in additionals where builder.append(record, section: .additional) { extra.append(record) }
        self.outgoing.append(message(current, extra))
    }
}

extension GroupKey {
    var sortKey: Int {
        switch self {
        case .host: 0
        case .service(let id): id.rawValue
        }
    }
}
