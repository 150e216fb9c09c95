import HuddleDNS
public import NIOCore

extension MDNSQuerier {
    /// Sends the questions that are due, refreshes records nearing expiry, expires the rest.
    public mutating func tick(now: NIODeadline) {
        let expired = self.cache.expire(now: now)
        var due: [QuestionKey] = []
        for (key, state) in self.questions where state.nextAt <= now {
            due.append(key)
            self.questions[key]?.markSent(now: now, cap: self.configuration.maxQueryInterval)
            if let remaining = state.remaining {
                if remaining <= 1 { self.questions[key] = nil } else { self.questions[key]?.remaining = remaining - 1 }
            }
        }
        // RFC 6762 §5.2: refresh records of interest at 80/85/90/95 % of their TTL.
        let interest = self.cache.hasDueRefresh(now: now) ? self.interestingKeys() : []
        let refreshes = self.cache.dueRefreshes(now: now) {
            interest.contains(QuestionKey(name: $0.name, type: $0.type))
        }
        for link in self.links {
            var keys = due
            for (name, type, index) in refreshes where index == link.interfaceIndex {
                let key = QuestionKey(name: name, type: type)
                if !keys.contains(key) { keys.append(key) }
            }
            self.sendQuery(keys, on: link, now: now)
        }
        if !expired.isEmpty {
            self.markDirty(expired.map(\.record))
            self.refreshViews()
        }
    }

    /// A query with known answers (RFC 6762 §7.1): cached answers from this interface with more than half their
    /// TTL left, never with cache-flush set. Too many known answers spill into continuation packets with TC set
    /// on all but the last (RFC 6762 §7.2).
    mutating func sendQuery(_ keys: [QuestionKey], on link: MDNSLink, now: NIODeadline) {
        guard !keys.isEmpty else { return }
        let maxSize = link.family == .v4 ? self.configuration.maxIPv4Payload : self.configuration.maxIPv6Payload
        var questions: [DNSQuestion] = []
        var knownAnswers: [DNSRecord] = []
        for key in keys.sorted(by: { $0.name.description < $1.name.description }) {
            let first = (self.questions[key]?.sent ?? 0) <= 1
            let unicast = (self.configuration.firstQueryUnicast || self.unicastRepliesReachOnlyUs) && first
            if unicast { self.lastUnicastQuestion = now }
            questions.append(DNSQuestion(name: key.name, type: key.type, unicastResponse: unicast))
            for entry in self.cache.entries(named: key.name, type: key.type)
            where entry.interfaceIndex == link.interfaceIndex {
                guard entry.hasMoreThanHalfItsTTL(at: now) else { continue }
                var known = entry.record
                known.ttl = entry.remainingTTL(at: now)
                known.cacheFlush = false
                if !knownAnswers.contains(known) { knownAnswers.append(known) }
            }
        }
        var builder = DNSMessageBuilder(flags: 0, maxSize: maxSize)
        var packet = DNSMessage.query([])
        for question in questions where builder.append(question) { packet.questions.append(question) }
        for record in knownAnswers {
            if builder.append(record, section: .answer) {
                packet.answers.append(record)
                continue
            }
            packet.truncated = true
            self.outgoing.append(MDNSOutgoing(message: packet, destination: .multicast(link)))
            builder = DNSMessageBuilder(flags: 0, maxSize: maxSize)
            packet = DNSMessage.query([])
            if builder.append(record, section: .answer) { packet.answers.append(record) }
        }
        self.outgoing.append(MDNSOutgoing(message: packet, destination: .multicast(link)))
    }

    /// Handles a datagram: responses feed the cache; other hosts' queries feed POOF and duplicate-question
    /// suppression.
    public mutating func received(_ incoming: MDNSIncoming, now: NIODeadline) {
        let message = incoming.message
        guard message.opcode == 0, message.rcode == 0 else { return }
        if message.isResponse {
            // RFC 6762 §6, §11: only responses from port 5353; unicast ones only shortly after a QU question.
            guard incoming.source.port == mdnsPort else { return }
            // Nothing is browsed: nothing to learn (a responder-only process keeps no cache).
            guard !self.browses.isEmpty || !self.questions.isEmpty else { return }
            if !incoming.wasMulticast {
                guard let asked = self.lastUnicastQuestion, asked + .seconds(2) > now else { return }
            }
            let records = message.answers + message.additionals
            self.markDirty(records)
            self.cache.insert(records, interfaceIndex: incoming.link.interfaceIndex, now: now) { count in
                (0..<count).map { _ in Double.random(in: 0...0.02, using: &self.random) }
            }
            self.refreshViews()
        } else if !self.ownAddresses.contains(incoming.source.address) {
            for question in message.questions {
                self.cache.noteQuery(question, interfaceIndex: incoming.link.interfaceIndex, now: now)
                self.suppressDuplicateQuestion(question, knownAnswers: message.answers, now: now)
            }
        }
        self.tick(now: now)
    }

    /// RFC 6762 §7.3: another host asked our question (QM) with no fewer known answers than we would give, so
    /// our next query in the series counts as sent.
    mutating func suppressDuplicateQuestion(_ question: DNSQuestion, knownAnswers: [DNSRecord], now: NIODeadline) {
        let key = QuestionKey(name: question.name, type: question.type)
        guard !question.unicastResponse, let state = self.questions[key], state.sent > 0,
            state.nextAt > now, state.nextAt < now + .seconds(1)
        else { return }
        let ours = self.cache.entries(named: key.name, type: key.type).filter {
            $0.hasMoreThanHalfItsTTL(at: now)
        }
        let covered = ours.allSatisfy { mine in knownAnswers.contains { $0.sameRecord(as: mine.record) } }
        if covered { self.questions[key]?.markSent(now: now, cap: self.configuration.maxQueryInterval) }
    }

    /// The (name, type) pairs worth refreshing: browse PTRs, the SRV and TXT of found instances, the
    /// addresses of their hosts.
    func interestingKeys() -> Set<QuestionKey> {
        var keys = Set<QuestionKey>()
        for browse in self.browses {
            keys.insert(QuestionKey(name: browse, type: .ptr))
            guard browse != dnssdServicesName else { continue }
            for ptr in self.cache.entries(named: browse, type: .ptr) {
                guard case .ptr(let instance) = ptr.record.data else { continue }
                keys.insert(QuestionKey(name: instance, type: .srv))
                keys.insert(QuestionKey(name: instance, type: .txt))
                for srv in self.cache.entries(named: instance, type: .srv) {
                    guard case .srv(_, _, _, let target) = srv.record.data else { continue }
                    keys.insert(QuestionKey(name: target, type: .a))
                    keys.insert(QuestionKey(name: target, type: .aaaa))
                }
            }
        }
        return keys
    }
}
