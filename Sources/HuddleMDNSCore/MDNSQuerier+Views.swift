import HuddleDNS
import NIOCore

extension MDNSQuerier {
    /// Rebuilds the resolved view of every browsed instance from the cache, emits what changed, and asks the
    /// questions still needed to resolve (RFC 6763 §4, §12).
    mutating func refreshViews(emit: Bool = true) {
        self.neededResolveQuestions = []
        var current: [DNSName: MDNSResolvedService] = [:]
        var types = Set<DNSName>()
        for browse in self.browses {
            for ptr in self.cache.entries(named: browse, type: .ptr) {
                guard case .ptr(let target) = ptr.record.data else { continue }
                if browse == dnssdServicesName {
                    types.insert(target)
                } else if current[target] == nil, let service = self.resolve(target, firstSeenOn: ptr.interfaceIndex) {
                    current[target] = service
                }
            }
        }
        if emit {
            for (name, service) in current.sorted(by: { $0.key.description < $1.key.description }) {
                if let old = self.reported[name] {
                    if old != service { self.events.append(.updated(service)) }
                } else {
                    self.events.append(.added(service))
                }
            }
            for name in self.reported.keys.sorted(by: { $0.description < $1.description }) where current[name] == nil {
                self.events.append(.removed(name))
            }
            for type in types.subtracting(self.reportedTypes).sorted(by: { $0.description < $1.description }) {
                self.events.append(.typeFound(type))
            }
            for type in self.reportedTypes.subtracting(types).sorted(by: { $0.description < $1.description }) {
                self.events.append(.typeLost(type))
            }
        }
        self.reported = current
        self.reportedTypes = types
        // Resolve questions for instances that went away stop.
        for (key, state) in self.questions
        where !state.isContinuous && state.remaining == nil && !self.neededResolveQuestions.contains(key) {
            self.questions[key] = nil
        }
    }

    /// Resolves one instance from the cache, asking for what is missing; nil until SRV and an address are known.
    mutating func resolve(_ instance: DNSName, firstSeenOn interfaceIndex: Int) -> MDNSResolvedService? {
        let srvKey = QuestionKey(name: instance, type: .srv)
        let txtKey = QuestionKey(name: instance, type: .txt)
        guard let srv = self.cache.entries(named: instance, type: .srv).last,
            case .srv(_, _, let port, let target) = srv.record.data
        else {
            self.askOnce(srvKey)
            self.askOnce(txtKey)
            return nil
        }
        self.questions[srvKey] = nil
        let txtEntry = self.cache.entries(named: instance, type: .txt).last
        if txtEntry == nil { self.askOnce(txtKey) } else { self.questions[txtKey] = nil }
        var addresses: [MDNSScopedAddress] = []
        for entry in self.cache.entries(named: target, type: .a) + self.cache.entries(named: target, type: .aaaa) {
            let address: MDNSAddress
            switch entry.record.data {
            case .a(let v4): address = .v4(v4)
            case .aaaa(let v6): address = .v6(v6)
            default: continue
            }
            let scoped = MDNSScopedAddress(address: address, interfaceIndex: entry.interfaceIndex)
            if !addresses.contains(scoped) { addresses.append(scoped) }
        }
        let addressKeys = [QuestionKey(name: target, type: .a), QuestionKey(name: target, type: .aaaa)]
        guard !addresses.isEmpty else {
            for key in addressKeys { self.askOnce(key) }
            return nil
        }
        for key in addressKeys { self.questions[key] = nil }
        var txt = MDNSTXTRecord()
        if case .txt(let strings) = txtEntry?.record.data { txt = MDNSTXTRecord(strings: strings) }
        return MDNSResolvedService(
            fullName: instance,
            host: target,
            port: port,
            txt: txt,
            addresses: addresses.sorted(),
            interfaceIndex: interfaceIndex
        )
    }

    /// Starts a resolve question unless one runs; it is sent on the next tick (the I/O layer ticks right after).
    mutating func askOnce(_ key: QuestionKey) {
        self.neededResolveQuestions.insert(key)
        guard self.questions[key] == nil else { return }
        self.questions[key] = QuestionState(isContinuous: false, nextAt: .uptimeNanoseconds(0))
    }
}
