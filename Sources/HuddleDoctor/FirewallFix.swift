/// The firewall front ends whose own commands should make a change that lasts: firewalld keeps its rules in
/// `table inet firewalld`, ufw its in iptables chains named `ufw-…`.
struct Frontends: Hashable, Sendable {
    var firewalld: Bool
    var ufw: Bool

    init(firewalld: Bool = false, ufw: Bool = false) {
        self.firewalld = firewalld
        self.ufw = ufw
    }

    init(_ rulesets: [FilterRuleset]) {
        let chains = rulesets.flatMap(\.chains)
        self.firewalld = chains.contains { $0.source == .nftables && $0.table == "firewalld" }
        self.ufw = chains.contains { $0.source != .nftables && $0.name.hasPrefix("ufw-") }
    }
}

/// The command that lets a session's traffic through a chain: the front end's own command where one manages the
/// rules, else an accept rule placed just before the rule that drops (or at the top of a chain whose policy drops).
struct FirewallFix {
    var frontends: Frontends

    /// A port for the example when the session's is random: pick one and pass it as `--port`.
    static let examplePort: UInt16 = 5454

    func allowing(_ traffic: FirewallFindings.Traffic, in chain: FilterChain, before rule: FilterRule?) -> String {
        let port: UInt16
        let transport: String
        switch traffic {
        case .mdns:
            port = 5353
            transport = "udp"
        case .session(let given):
            port = given ?? Self.examplePort
            transport = "tcp"
        case .sessionDatagrams(let given):
            port = given
            transport = "udp"
        case .foreign(let listening):
            port = listening.port
            transport = listening.transport.rawValue
        }
        let command = self.command(port: port, transport: transport, chain: chain, before: rule)
        guard case .session(nil) = traffic else { return command }
        return "give the session a fixed port (huddle chat --port \(port)) and allow it: \(command)"
    }

    private func command(port: UInt16, transport: String, chain: FilterChain, before rule: FilterRule?) -> String {
        if self.frontends.firewalld, chain.source == .nftables, chain.table == "firewalld" {
            let what = port == 5353 && transport == "udp" ? "--add-service=mdns" : "--add-port=\(port)/\(transport)"
            return "firewall-cmd \(what) --permanent && firewall-cmd --reload"
        }
        if self.frontends.ufw, chain.source != .nftables {
            return "ufw allow \(port)/\(transport)"
        }
        switch chain.source {
        case .nftables:
            let position = rule.map { " handle \($0.handle)" } ?? ""
            return
                "nft insert rule \(chain.family) \(chain.table) \(chain.name)\(position) \(transport) dport \(port) accept"
        case .iptables, .ip6tables:
            let table = chain.table == "filter" ? "" : " -t \(chain.table)"
            let position = rule.map { " \($0.handle)" } ?? ""
            return
                "\(chain.source.rawValue)\(table) -I \(chain.name)\(position) -p \(transport) --dport \(port) -j ACCEPT"
        }
    }
}
