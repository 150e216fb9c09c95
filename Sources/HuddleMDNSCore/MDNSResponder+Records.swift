import HuddleDNS

extension MDNSResponder {
    /// The A and AAAA records of an interface's addresses, owned by the host name (RFC 6762 §6.2: all
    /// addresses valid on the interface, and only those, so other links' addresses never leak).
    func addressRecords(of interface: MDNSInterface) -> [DNSRecord] {
        let ttl = self.configuration.hostRecordTTL
        let v4 = interface.ipv4.map { DNSRecord(name: self.hostName, data: .a($0.address), ttl: ttl, cacheFlush: true) }
        let v6 = interface.ipv6.map {
            DNSRecord(name: self.hostName, data: .aaaa($0.address), ttl: ttl, cacheFlush: true)
        }
        return v4 + v6
    }

    /// The host's unique records on a link: both address families of that interface (RFC 6762 §6.2, §20:
    /// AAAA over IPv4 and A over IPv6 too, as mDNSResponder does, so single-family browsers learn both).
    func hostRecords(on link: MDNSLink) -> [OwnedRecord] {
        guard let interface = self.interfaces[link.interfaceIndex] else { return [] }
        let addresses = self.addressRecords(of: interface)
        guard self.configuration.publishReverseMapping else {
            return addresses.map { OwnedRecord(record: $0, isUnique: true) }
        }
        // RFC 6762 §4: reverse-mapping PTRs for each address, unique, with the host name's TTL.
        let reverse = addresses.compactMap { record -> DNSRecord? in
            let name: DNSName
            switch record.data {
            case .a(let v4): name = Self.reverseName(v4)
            case .aaaa(let v6): name = Self.reverseName(v6)
            default: return nil
            }
            return DNSRecord(name: name, data: .ptr(self.hostName), ttl: record.ttl, cacheFlush: true)
        }
        return (addresses + reverse).map { OwnedRecord(record: $0, isUnique: true) }
    }

    /// `d.c.b.a.in-addr.arpa.` (RFC 1035 §3.5).
    static func reverseName(_ address: IPv4Address) -> DNSName {
        let labels = address.bytes.reversed().map { Array(String($0).utf8) }
        return DNSName(uncheckedLabels: labels + [Array("in-addr".utf8), Array("arpa".utf8)])
    }

    /// The nibble form under `ip6.arpa.` (RFC 3596 §2.5).
    static func reverseName(_ address: IPv6Address) -> DNSName {
        let nibbles = address.bytes.reversed().flatMap { [$0 & 0x0F, $0 >> 4] }
        let labels = nibbles.map { Array(String($0, radix: 16).utf8) }
        return DNSName(uncheckedLabels: labels + [Array("ip6".utf8), Array("arpa".utf8)])
    }

    /// A service's records: SRV and TXT (unique), the type PTR, the type-enumeration PTR and subtype PTRs
    /// (shared) (RFC 6763 §4, §6, §7.1, §9; TTLs from RFC 6762 §10).
    func serviceRecords(_ state: ServiceState, on link: MDNSLink) -> [OwnedRecord] {
        let registration = state.registration
        let instance = registration.instanceDNSName
        let typeName = registration.type.name
        let hostTTL = self.configuration.hostRecordTTL
        let otherTTL = self.configuration.otherRecordTTL
        var records = [
            OwnedRecord(
                record: DNSRecord(
                    name: instance,
                    data: .srv(priority: 0, weight: 0, port: registration.port, target: self.hostName),
                    ttl: hostTTL,
                    cacheFlush: true
                ),
                isUnique: true
            ),
            OwnedRecord(
                record: DNSRecord(
                    name: instance,
                    data: .txt(registration.txt.strings),
                    ttl: otherTTL,
                    cacheFlush: true
                ),
                isUnique: true
            ),
            OwnedRecord(record: DNSRecord(name: typeName, data: .ptr(instance), ttl: otherTTL), isUnique: false),
            OwnedRecord(
                record: DNSRecord(name: dnssdServicesName, data: .ptr(typeName), ttl: otherTTL),
                isUnique: false
            ),
        ]
        for subtype in registration.subtypes {
            let name = DNSName(uncheckedLabels: [Array(subtype.utf8), Array("_sub".utf8)] + typeName.labels)
            records.append(
                OwnedRecord(record: DNSRecord(name: name, data: .ptr(instance), ttl: otherTTL), isUnique: false)
            )
        }
        return records
    }

    /// The records of one group on a link, whatever its phase.
    func records(of group: GroupKey, on link: MDNSLink) -> [OwnedRecord] {
        switch group {
        case .host: return self.hostRecords(on: link)
        case .service(let id): return self.services[id].map { self.serviceRecords($0, on: link) } ?? []
        }
    }

    /// The unique name a group probes for.
    func probeName(of group: GroupKey) -> DNSName? {
        switch group {
        case .host: return self.hostName
        case .service(let id): return self.services[id]?.registration.instanceDNSName
        }
    }

    /// Every group, the host first.
    var groupKeys: [GroupKey] { [.host] + self.services.keys.sorted().map { .service($0) } }

    func phase(of group: GroupKey) -> GroupState.Phase {
        switch group {
        case .host: return self.host.phase
        case .service(let id): return self.services[id]?.group.phase ?? .idle
        }
    }

    mutating func setPhase(_ phase: GroupState.Phase, of group: GroupKey) {
        switch group {
        case .host: self.host.phase = phase
        case .service(let id): self.services[id]?.group.phase = phase
        }
    }

    /// The records we answer with on a link: those of every group that owns its name (RFC 6762 §6: only
    /// authoritative data; records still being probed are not answered with).
    func answerableRecords(on link: MDNSLink) -> [OwnedRecord] {
        var result: [OwnedRecord] = []
        if self.host.phase.ownsName { result += self.hostRecords(on: link) }
        for id in self.services.keys.sorted() {
            guard let state = self.services[id], state.group.phase.ownsName else { continue }
            for record in self.serviceRecords(state, on: link) where !result.contains(record) {
                result.append(record)
            }
        }
        return result
    }

    /// Whether a record from the network is identical to one of ours on any link (our own packet looped back
    /// or arriving on another interface of the same LAN, or a cooperating responder): never a conflict
    /// (RFC 6762 §6.6, §9; the fix for rename loops on multi-homed hosts).
    func isOwnRecordData(_ record: DNSRecord) -> Bool {
        for link in self.links {
            for group in self.groupKeys {
                if self.records(of: group, on: link).contains(where: { $0.record.sameRecord(as: record) }) {
                    return true
                }
            }
        }
        return false
    }

    /// NSEC for a unique name we own, listing the types that exist there (RFC 6762 §6.1).
    func nsec(for name: DNSName, on link: MDNSLink) -> DNSRecord? {
        let owned = self.answerableRecords(on: link).filter { $0.isUnique && $0.record.name == name }
        guard !owned.isEmpty else { return nil }
        let ttl = name == self.hostName ? self.configuration.hostRecordTTL : self.configuration.otherRecordTTL
        let types = Set(owned.map(\.record.type))
        return DNSRecord(name: name, data: .nsec(next: name, types: types), ttl: ttl, cacheFlush: true)
    }

    /// Additional records for an answer set (RFC 6763 §12; RFC 6762 §6.2 address fate sharing and NSEC).
    func additionals(for answers: [DNSRecord], on link: MDNSLink) -> [DNSRecord] {
        let records = self.answerableRecords(on: link).map(\.record)
        var result: [DNSRecord] = []
        func add(_ record: DNSRecord) {
            if !answers.contains(record) && !result.contains(record) { result.append(record) }
        }
        func addAddresses(of host: DNSName) {
            let addresses = records.filter { $0.name == host && ($0.type == .a || $0.type == .aaaa) }
            addresses.forEach(add)
            let types = Set(addresses.map(\.type))
            if !addresses.isEmpty, types.count == 1, let nsec = self.nsec(for: host, on: link) { add(nsec) }
        }
        for answer in answers {
            switch answer.data {
            case .ptr(let instance):
                for record in records where record.name == instance && (record.type == .srv || record.type == .txt) {
                    add(record)
                    if case .srv(_, _, _, let target) = record.data { addAddresses(of: target) }
                }
            case .srv(_, _, _, let target):
                addAddresses(of: target)
            case .a, .aaaa:
                addAddresses(of: answer.name)
            default:
                break
            }
        }
        return result
    }
}
