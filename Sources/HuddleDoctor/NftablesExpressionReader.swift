import HuddleMDNSCore

/// Turns one rule's `expr` list (libnftables-json(5), "STATEMENTS", "EXPRESSIONS") into conditions and a verdict.
struct NftablesExpressionReader {
    /// Named sets' elements by `family table name`.
    var sets: [String: [NftablesJSON]]
    /// `family table ` of the rule, to find its named sets.
    var setPrefix: String

    func rule(_ expressions: [NftablesJSON]) -> FilterRule {
        var rule = FilterRule(conditions: [], verdict: .none, handle: 0, text: "")
        for expression in expressions {
            guard let (kind, body) = expression.tagged else { continue }
            switch kind {
            case "match":
                rule.conditions += self.match(body)
            case "accept": rule.verdict = .accept
            case "drop": rule.verdict = .drop
            case "reject": rule.verdict = .reject
            case "return": rule.verdict = .return
            case "jump", "goto":
                guard let target = body["target"]?.string else { continue }
                rule.verdict = kind == "jump" ? .jump(target) : .goto(target)
            case "xt":
                // iptables-nft extensions, opaque in JSON: a comment always matches, REJECT and DROP are verdicts.
                let name = body["name"]?.string ?? "?"
                if body["type"]?.string == "target" {
                    if name == "REJECT" { rule.verdict = .reject }
                } else if name != "comment" {
                    rule.conditions.append(.unknown("-m \(name)"))
                }
            case "limit", "quota", "vmap", "queue", "numgen", "fib", "socket", "osf":
                rule.conditions.append(.unknown(kind))
            default:
                continue  // counter, log, meta set, ct set, notrack, …: no condition, no verdict
            }
        }
        return rule
    }

    private func match(_ match: NftablesJSON) -> [FilterCondition] {
        let op = match["op"]?.string ?? "=="
        guard let (kind, fields) = match["left"]?.tagged, case .object = fields else { return [.unknown("match")] }
        let values = self.values(match["right"])
        let protocolName = (fields["protocol"] ?? fields["name"])?.string
        let field = (fields["field"] ?? fields["key"])?.string ?? ""
        var conditions: [FilterCondition]
        switch (kind, protocolName, field) {
        case ("payload", "udp", "dport"), ("payload", "tcp", "dport"), ("payload", "th", "dport"):
            let transport = protocolName.flatMap(FilterPacket.Transport.init(rawValue:))
            guard let ports = Self.ports(values, op: op) else { return [.unknown("\(field)")] }
            return [.destinationPort(ports, transport: transport)]
                + (transport.map { [.transport([$0.rawValue])] } ?? [])
        case ("payload", "udp", "sport"), ("payload", "tcp", "sport"), ("payload", "th", "sport"):
            let transport = protocolName.flatMap(FilterPacket.Transport.init(rawValue:))
            guard let ports = Self.ports(values, op: op) else { return [.unknown("\(field)")] }
            return [.sourcePort(ports, transport: transport)] + (transport.map { [.transport([$0.rawValue])] } ?? [])
        case ("payload", "ip", "protocol"), ("payload", "ip6", "nexthdr"):
            conditions = [.transport(Set(values.compactMap(\.text)))]
        case ("payload", "ip", "daddr"), ("payload", "ip6", "daddr"):
            let family: MDNSFamily = protocolName == "ip" ? .v4 : .v6
            return [.family(family), Self.negate(.destinationAddress(values.compactMap(\.text), family: family), op)]
        case ("payload", "ip", _):
            return [.family(.v4), .unknown("ip \(field)")]
        case ("payload", "ip6", _):
            return [.family(.v6), .unknown("ip6 \(field)")]
        case ("meta", _, "l4proto"):
            conditions = [.transport(Set(values.compactMap(\.text)))]
        case ("meta", _, "iifname"), ("meta", _, "iif"):
            conditions = [.inputInterface(values.compactMap(\.text))]
        case ("meta", _, "nfproto"):
            let names = Set(values.compactMap(\.text))
            conditions = names == ["ipv4"] ? [.family(.v4)] : names == ["ipv6"] ? [.family(.v6)] : [.unknown("nfproto")]
        case ("meta", _, "pkttype"):
            conditions = [.packetType(Set(values.compactMap(\.text)))]
        case ("ct", _, "state"):
            conditions = [.connectionState(Set(values.compactMap(\.text)))]
        case ("ct", _, "status"):
            conditions = [.connectionStatus(Set(values.compactMap(\.text)))]
        default:
            return [.unknown("\(kind) \(field)")]
        }
        guard values.allSatisfy({ $0.text != nil }) else { return [.unknown("\(kind) \(field)")] }
        switch op {
        case "==", "in": return conditions
        case "!=": return conditions.map { .not($0) }
        default: return [.unknown("\(kind) \(field) \(op)")]
        }
    }

    private static func negate(_ condition: FilterCondition, _ op: String) -> FilterCondition {
        op == "!=" ? .not(condition) : condition
    }

    /// A port match as a set of ranges; nil for a value or an operator doctor does not read.
    private static func ports(_ values: [Value], op: String) -> PortSet? {
        var ranges: [ClosedRange<Int>] = []
        for value in values {
            switch value {
            case .range(let low, let high): ranges.append(low...high)
            case .text(let text):
                guard let port = Int(text) ?? serviceNames[text] else { return nil }
                ranges.append(port...port)
            }
        }
        guard ranges.count == 1 || op == "==" || op == "!=" || op == "in" else { return nil }
        let first = ranges.first?.lowerBound ?? 0
        switch op {
        case "==", "in": return PortSet(ranges: ranges)
        case "!=": return PortSet(ranges: Self.complement(ranges))
        case "<": return PortSet(ranges: first > 0 ? [0...(first - 1)] : [])
        case "<=": return PortSet(ranges: [0...first])
        case ">": return PortSet(ranges: first < 65535 ? [(first + 1)...65535] : [])
        case ">=": return PortSet(ranges: [first...65535])
        default: return nil
        }
    }

    private static func complement(_ ranges: [ClosedRange<Int>]) -> [ClosedRange<Int>] {
        var result: [ClosedRange<Int>] = []
        var next = 0
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if range.lowerBound > next { result.append(next...(range.lowerBound - 1)) }
            next = max(next, range.upperBound + 1)
        }
        if next <= 65535 { result.append(next...65535) }
        return result
    }

    /// The service names `nft` may print for ports (`nft -S`), those doctor cares about.
    private static let serviceNames = ["mdns": 5353, "domain": 53, "ssh": 22, "http": 80, "https": 443]

    /// One value of a match's right-hand side.
    enum Value {
        case text(String)
        case range(Int, Int)

        var text: String? {
            if case .text(let text) = self { return text }
            return nil
        }
    }

    /// The values of a right-hand side: a number, a string, a named set (`@name`), an anonymous set, a list of
    /// flags, a range, a prefix.
    private func values(_ right: NftablesJSON?) -> [Value] {
        switch right {
        case .number(let number):
            return [.text(String(number))]
        case .string(let text):
            if text.hasPrefix("@") { return (self.sets[self.setPrefix + text.dropFirst()] ?? []).flatMap(self.values) }
            return [.text(text)]
        case .array(let list):
            return list.flatMap(self.values)
        case .object(let object):
            if let elements = object["set"]?.array { return elements.flatMap(self.values) }
            if let bounds = object["range"]?.array, bounds.count == 2, let low = bounds[0].int, let high = bounds[1].int
            {
                return [.range(low, high)]
            }
            if let prefix = object["prefix"], let address = prefix["addr"]?.string, let length = prefix["len"]?.int {
                return [.text("\(address)/\(length)")]
            }
            if let element = object["elem"], case .object = element { return self.values(element["val"]) }
            return [.range(-1, -1)]  // a concatenation or a map: never equal to a plain value
        default:
            return [.range(-1, -1)]
        }
    }
}
