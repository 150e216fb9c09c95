import HuddleMDNSCore

/// What the packet filter does with a session's traffic: mDNS answers from peers (UDP 5353 to the group, RFC 6762
/// §3, §6), peers' connections to the session's TCP port and their datagrams to its UDP port of the same number,
/// on each interface and family the session uses.
///
/// Pure: rule sets in, findings out. Every incoming base chain (hook input or prerouting) is followed on its own,
/// since one accepting a packet does not stop another from dropping it (nft(8), "BASE CHAIN").
struct FirewallFindings {
    /// The interfaces and families the session uses.
    struct Link: Hashable, Sendable {
        var interfaceName: String
        var family: MDNSFamily
    }

    /// What traffic a finding is about.
    enum Traffic: Hashable, Sendable {
        case mdns
        /// The session's TCP port; nil when it is random (no `--port`).
        case session(UInt16?)
        /// The session's UDP port, of the TCP port's number (`docs/wire-protocol.md` §8, "The datagram port").
        case sessionDatagrams(UInt16)
        /// A port LocalSend or KDE Connect listens on.
        case foreign(ListeningPort)
    }

    var rulesets: [FilterRuleset]
    var links: [Link]
    var sessionPort: UInt16?
    /// The other ports the commands listen on (``ListeningPort/foreign``).
    var otherPorts: [ListeningPort] = []

    /// One drop, and the links it hits.
    private struct Blocking: Hashable {
        var traffic: Traffic
        var chain: FilterChain
        /// The rule that drops, nil for the chain's policy.
        var rule: FilterRule?
        /// Whether a condition doctor cannot judge decides it.
        var uncertain: Bool
        var possibleAccepts: [RuleReference]
    }

    /// Everything asked about, in the order findings are listed.
    var traffic: [Traffic] {
        [.mdns, .session(self.sessionPort)] + (self.sessionPort.map { [.sessionDatagrams($0)] } ?? [])
            + self.otherPorts.map(Traffic.foreign)
    }

    func findings() -> [DoctorFinding] {
        var order: [Blocking] = []
        var hits: [Blocking: [Link]] = [:]
        func note(_ blocking: Blocking, _ link: Link) {
            if hits[blocking] == nil { order.append(blocking) }
            if !(hits[blocking] ?? []).contains(link) { hits[blocking, default: []].append(link) }
        }
        for ruleset in self.rulesets {
            for link in self.links {
                for traffic in self.traffic {
                    let packet = Self.packet(of: traffic, on: link)
                    let walk = PacketFilterWalk(ruleset: ruleset, packet: packet)
                    for base in ruleset.chains where base.filtersIncoming(link.family) {
                        let outcome = walk.outcome(of: base)
                        switch outcome.decision {
                        case .droppedByRule(let reference):
                            note(
                                Blocking(
                                    traffic: traffic,
                                    chain: reference.chain,
                                    rule: reference.rule,
                                    uncertain: false,
                                    possibleAccepts: []
                                ),
                                link
                            )
                        case .droppedByPolicy:
                            let uncertain = !outcome.possibleAccepts.isEmpty
                            note(
                                Blocking(
                                    traffic: traffic,
                                    chain: base,
                                    rule: nil,
                                    uncertain: uncertain,
                                    possibleAccepts: outcome.possibleAccepts
                                ),
                                link
                            )
                        case .accepted, .passed:
                            break
                        }
                        for reference in outcome.possibleDrops {
                            note(
                                Blocking(
                                    traffic: traffic,
                                    chain: reference.chain,
                                    rule: reference.rule,
                                    uncertain: true,
                                    possibleAccepts: []
                                ),
                                link
                            )
                        }
                    }
                }
            }
        }
        let frontends = Frontends(self.rulesets)
        return order.map { self.finding($0, links: hits[$0] ?? [], frontends: frontends) }
    }

    private func finding(_ blocking: Blocking, links: [Link], frontends: Frontends) -> DoctorFinding {
        let what: String
        let code: String
        switch blocking.traffic {
        case .mdns:
            what = "mDNS (UDP 5353)"
            code =
                blocking.rule == nil ? DoctorFinding.Code.firewallPolicyDropsMDNS : DoctorFinding.Code.firewallDropsMDNS
        case .session(let port?):
            what = "connections to the session's TCP port \(port)"
            code =
                blocking.rule == nil
                ? DoctorFinding.Code.firewallPolicyDropsSessionPort : DoctorFinding.Code.firewallDropsSessionPort
        case .session(nil):
            what = "new TCP connections (a session listens on a random port unless given --port)"
            code = DoctorFinding.Code.firewallMayBlockSessionPort
        case .sessionDatagrams(let port):
            what = "the session's unreliable messages (UDP \(port))"
            code =
                blocking.rule == nil
                ? DoctorFinding.Code.firewallPolicyDropsSessionDatagramPort
                : DoctorFinding.Code.firewallDropsSessionDatagramPort
        case .foreign(let port):
            what = "\(port.purpose) (\(port.transport.rawValue.uppercased()) \(port.port))"
            code = "firewall-\(blocking.rule == nil ? "policy-" : "")drops-\(port.codeName)-port"
        }
        let chain = blocking.chain
        let description = RuleDescription(
            tool: chain.source.rawValue,
            family: chain.family,
            table: chain.table,
            chain: chain.name,
            handle: blocking.rule?.handle,
            text: blocking.rule?.text ?? "policy \(chain.policy ?? "drop")"
        )
        let on = Self.linkText(links)
        var message: String
        if blocking.rule != nil {
            message = "\(chain.source.rawValue) rule \(blocking.uncertain ? "may drop" : "drops") \(what) on \(on): "
        } else if blocking.uncertain {
            message = "\(chain.source.rawValue) chain may drop \(what) on \(on) by its policy: "
        } else {
            message = "\(chain.source.rawValue) chain drops \(what) on \(on) by its policy, and no rule accepts it: "
        }
        message += description.summary
        if !blocking.possibleAccepts.isEmpty, blocking.traffic != .session(nil) {
            let rules = blocking.possibleAccepts.map { "handle \($0.rule.handle) \($0.rule.text)" }
            message += " (unless one of these accepts it: \(rules.joined(separator: "; ")))"
        }
        let certain = !blocking.uncertain && blocking.traffic != .session(nil)
        let fix = FirewallFix(frontends: frontends).allowing(blocking.traffic, in: chain, before: blocking.rule)
        var names: [String] = []
        for link in links where !names.contains(link.interfaceName) { names.append(link.interfaceName) }
        // A foreign protocol's port matters only to whoever uses it, the datagram port only to whoever sends
        // unreliable messages (connections, transfers and chat work without it): a warning, whatever the certainty.
        let severity: DoctorFinding.Severity =
            switch blocking.traffic {
            case .foreign, .sessionDatagrams: .warning
            case .mdns, .session: certain ? .error : .warning
            }
        return DoctorFinding(code, severity, message, fix: fix, rule: description, interfaces: names)
    }

    /// The first packet of `traffic` arriving on `link`.
    static func packet(of traffic: Traffic, on link: Link) -> FilterPacket {
        switch traffic {
        case .mdns: .mdns(family: link.family, interfaceName: link.interfaceName)
        case .session(let port):
            .sessionConnection(port: port, family: link.family, interfaceName: link.interfaceName)
        case .sessionDatagrams(let port):
            ListeningPort(transport: .udp, port: port, purpose: "", codeName: "")
                .packet(family: link.family, interfaceName: link.interfaceName)
        case .foreign(let port): port.packet(family: link.family, interfaceName: link.interfaceName)
        }
    }

    /// `veth-a (IPv4, IPv6), eth0 (IPv4)`.
    static func linkText(_ links: [Link]) -> String {
        var names: [String] = []
        var families: [String: [String]] = [:]
        for link in links {
            if families[link.interfaceName] == nil { names.append(link.interfaceName) }
            families[link.interfaceName, default: []].append(link.family.description)
        }
        return names.map { "\($0) (\(families[$0, default: []].joined(separator: ", ")))" }.joined(separator: ", ")
    }
}
