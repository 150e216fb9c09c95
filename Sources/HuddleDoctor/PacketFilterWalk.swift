import HuddleMDNSCore

/// Which tool a rule set was read from; it decides how a rule is named and how a fix is written.
enum FilterSource: String, Hashable, Sendable {
    case nftables
    case iptables
    case ip6tables
}

/// What a rule does when it matches.
enum FilterVerdict: Hashable, Sendable {
    case accept
    case drop
    case reject
    case jump(String)
    case goto(String)
    case `return`
    /// No verdict (a counter, a log), or one doctor does not follow (a verdict map, a queue).
    case none
}

/// One rule: its conditions, all of which must hold, and its verdict.
struct FilterRule: Hashable, Sendable {
    var conditions: [FilterCondition]
    var verdict: FilterVerdict
    /// The nftables handle, or the iptables rule number (1 for the first rule of the chain).
    var handle: Int
    /// The rule as the tool prints it.
    var text: String
}

/// A chain: base chains (with a hook) see packets; others only through a jump or goto.
struct FilterChain: Hashable, Sendable {
    var source: FilterSource
    /// `inet`, `ip`, `ip6` (also `bridge`, `netdev`, `arp`, which doctor leaves alone).
    var family: String
    var table: String
    var name: String
    /// `input`, `prerouting`, … for a base chain; nil for a regular one.
    var hook: String?
    /// `accept` or `drop` for a base chain.
    var policy: String?
    var rules: [FilterRule]

    /// Whether packets of `family` addressed to this host pass this chain on their way in.
    func filtersIncoming(_ packetFamily: MDNSFamily) -> Bool {
        guard let hook, hook == "input" || hook == "prerouting" else { return false }
        switch self.family {
        case "inet": return true
        case "ip": return packetFamily == .v4
        case "ip6": return packetFamily == .v6
        default: return false
        }
    }
}

/// A rule and the chain that holds it.
struct RuleReference: Hashable, Sendable {
    var chain: FilterChain
    var rule: FilterRule
}

/// A whole rule set from one tool.
struct FilterRuleset: Hashable, Sendable {
    var chains: [FilterChain]

    func chain(_ name: String, besides base: FilterChain) -> FilterChain? {
        self.chains.first {
            $0.name == name && $0.table == base.table && $0.family == base.family && $0.source == base.source
        }
    }
}

/// What a base chain does with a packet.
struct ChainOutcome: Hashable, Sendable {
    enum Decision: Hashable, Sendable {
        case accepted
        /// A rule that certainly matches drops or rejects it.
        case droppedByRule(RuleReference)
        /// No rule decided and the chain's policy is drop.
        case droppedByPolicy
        /// No rule decided and the policy accepts.
        case passed
    }

    var decision: Decision
    /// Accept rules that may match (a condition doctor cannot judge) seen before the decision.
    var possibleAccepts: [RuleReference] = []
    /// Drop or reject rules that name the packet's port and may match.
    var possibleDrops: [RuleReference] = []
}

/// Follows a packet through a base chain, its jumps and gotos, as the kernel would as far as doctor can judge each
/// condition (nft(8), "Chains"; iptables(8), "TARGETS"). A rule whose conditions may or may not match is noted and
/// passed over.
struct PacketFilterWalk {
    var ruleset: FilterRuleset
    var packet: FilterPacket

    private enum Terminal: Hashable {
        case accept(RuleReference)
        case drop(RuleReference)
    }

    private struct Pass {
        var terminal: Terminal?
        var possibleAccepts: [RuleReference] = []
        var possibleDrops: [RuleReference] = []
    }

    func outcome(of base: FilterChain) -> ChainOutcome {
        let pass = self.walk(base, base: base, depth: 0)
        let decision: ChainOutcome.Decision
        switch pass.terminal {
        case .accept: decision = .accepted
        case .drop(let reference): decision = .droppedByRule(reference)
        case nil: decision = base.policy == "drop" ? .droppedByPolicy : .passed
        }
        return ChainOutcome(
            decision: decision,
            possibleAccepts: pass.possibleAccepts,
            possibleDrops: pass.possibleDrops
        )
    }

    private func walk(_ chain: FilterChain, base: FilterChain, depth: Int) -> Pass {
        var pass = Pass()
        guard depth < 16 else { return pass }  // a loop of jumps; the kernel refuses one anyway
        for rule in chain.rules {
            let truth = FilterTruth.all(rule.conditions.map { $0.holds(for: self.packet) })
            guard truth != .no else { continue }
            let reference = RuleReference(chain: chain, rule: rule)
            switch rule.verdict {
            case .none:
                continue
            case .accept:
                if truth == .yes {
                    return Pass(
                        terminal: .accept(reference),
                        possibleAccepts: pass.possibleAccepts,
                        possibleDrops: pass.possibleDrops
                    )
                }
                pass.possibleAccepts.append(reference)
            case .drop, .reject:
                if truth == .yes {
                    return Pass(
                        terminal: .drop(reference),
                        possibleAccepts: pass.possibleAccepts,
                        possibleDrops: pass.possibleDrops
                    )
                }
                if rule.conditions.contains(where: { $0.namesDestinationPort(of: self.packet) }) {
                    pass.possibleDrops.append(reference)
                }
            case .return:
                if truth == .yes { return pass }
            case .jump(let target), .goto(let target):
                guard let next = self.ruleset.chain(target, besides: base) else { continue }
                let inner = self.walk(next, base: base, depth: depth + 1)
                pass.possibleAccepts += inner.possibleAccepts
                pass.possibleDrops += inner.possibleDrops
                if truth == .yes {
                    if inner.terminal != nil { pass.terminal = inner.terminal }
                    if inner.terminal != nil || rule.verdict == .goto(target) { return pass }
                } else if let terminal = inner.terminal {
                    switch terminal {
                    case .accept(let inner): pass.possibleAccepts.append(inner)
                    case .drop(let inner):
                        // A drop behind a conditional jump counts only when it is about this port: a block list
                        // jumped to for a few source addresses is no finding.
                        if inner.rule.conditions.contains(where: { $0.namesDestinationPort(of: self.packet) }) {
                            pass.possibleDrops.append(inner)
                        }
                    }
                }
            }
        }
        return pass
    }
}
