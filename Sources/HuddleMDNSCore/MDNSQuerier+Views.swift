import HuddleDNS
import NIOCore

extension MDNSQuerier {
    /// Brings the resolved view of the browsed instances up to date with the cache, emits what changed, and
    /// asks the questions still needed to resolve (RFC 6763 §4, §12).
    ///
    /// Only instances whose records changed since the last call (``dirtyNames``) are resolved again, so a
    /// packet costs the same with five instances on the network or five thousand.
    mutating func refreshViews(emit: Bool = true) {
        var members: [DNSName: Int] = [:]
        var types = Set<DNSName>()
        for browse in self.browses {
            for ptr in self.cache.entries(named: browse, type: .ptr) {
                guard case .ptr(let target) = ptr.record.data else { continue }
                if browse == dnssdServicesName {
                    types.insert(target)
                } else if members[target] == nil {
                    members[target] = ptr.interfaceIndex
                }
            }
        }
        var candidates = Set<DNSName>()
        if self.needsFullRefresh {
            candidates = Set(members.keys).union(self.reported.keys).union(self.hostOfInstance.keys)
        } else {
            for name in self.dirtyNames {
                if members[name] != nil || self.reported[name] != nil { candidates.insert(name) }
                candidates.formUnion(self.instancesOfHost[name] ?? [])
            }
            for name in self.reported.keys where members[name] == nil { candidates.insert(name) }
        }
        self.dirtyNames = []
        self.needsFullRefresh = false
        var changed: [(String, MDNSBrowseEvent)] = []
        for name in candidates {
            let service = members[name].flatMap { self.resolve(name, firstSeenOn: $0) }
            if members[name] == nil { self.forget(name) }
            switch (self.reported[name], service) {
            case (nil, let service?):
                changed.append((name.description, .added(service)))
            case (let old?, let service?) where old != service:
                changed.append((name.description, .updated(service)))
            case (.some, nil):
                changed.append((name.description, .removed(name)))
            default:
                break
            }
            self.reported[name] = service
        }
        if emit {
            // Events in a stable order: by name.
            self.events += changed.sorted { $0.0 < $1.0 }.map(\.1)
            for type in types.subtracting(self.reportedTypes).sorted(by: { $0.description < $1.description }) {
                self.events.append(.typeFound(type))
            }
            for type in self.reportedTypes.subtracting(types).sorted(by: { $0.description < $1.description }) {
                self.events.append(.typeLost(type))
            }
        }
        self.reportedTypes = types
    }

    /// Marks the names whose cached records changed, and the instances PTR records point at.
    mutating func markDirty(_ records: some Sequence<DNSRecord>) {
        for record in records {
            self.dirtyNames.insert(record.name)
            if case .ptr(let target) = record.data { self.dirtyNames.insert(target) }
        }
    }

    /// An instance is no longer browsed: its resolve questions stop, and so do its host's unless shared.
    mutating func forget(_ instance: DNSName) {
        self.questions[QuestionKey(name: instance, type: .srv)] = nil
        self.questions[QuestionKey(name: instance, type: .txt)] = nil
        self.setHost(nil, of: instance)
    }

    /// Records which host an instance's SRV points at; a host no instance uses any more stops being asked for.
    mutating func setHost(_ host: DNSName?, of instance: DNSName) {
        let old = self.hostOfInstance[instance]
        guard old != host else { return }
        if let old {
            self.instancesOfHost[old]?.remove(instance)
            if self.instancesOfHost[old]?.isEmpty == true {
                self.instancesOfHost[old] = nil
                self.questions[QuestionKey(name: old, type: .a)] = nil
                self.questions[QuestionKey(name: old, type: .aaaa)] = nil
            }
        }
        self.hostOfInstance[instance] = host
        if let host { self.instancesOfHost[host, default: []].insert(instance) }
    }

    /// Resolves one instance from the cache, asking for what is missing; nil until SRV and an address are known.
    mutating func resolve(_ instance: DNSName, firstSeenOn interfaceIndex: Int) -> MDNSResolvedService? {
        let srvKey = QuestionKey(name: instance, type: .srv)
        let txtKey = QuestionKey(name: instance, type: .txt)
        guard let srv = self.cache.entries(named: instance, type: .srv).last,
            case .srv(_, _, let port, let target) = srv.record.data
        else {
            self.setHost(nil, of: instance)
            self.askOnce(srvKey)
            self.askOnce(txtKey)
            return nil
        }
        self.setHost(target, of: instance)
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
        guard self.questions[key] == nil else { return }
        self.questions[key] = QuestionState(isContinuous: false, nextAt: .uptimeNanoseconds(0))
    }
}
