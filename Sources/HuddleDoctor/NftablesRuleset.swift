import Foundation

/// Reads `nft -j list ruleset` (libnftables-json(5)) into chains and rules doctor can follow.
///
/// Each rule's `expr` list becomes conditions and a verdict; a match doctor does not understand becomes an
/// ``FilterCondition/unknown(_:)`` condition, so the rule counts as "may match" rather than being misread.
enum NftablesRuleset {
    /// The rule set in `json`, with rule texts from `listing` (`nft -a list ruleset`) where it has them; tables named
    /// in `skippingTables` (`"ip filter"`: those `iptables-nft` manages, read from `iptables-save` instead) are
    /// left out. Nil when `json` is not an nftables rule set.
    static func parse(json: String, listing: String = "", skippingTables: Set<String> = []) -> FilterRuleset? {
        guard let data = json.data(using: .utf8),
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let objects = root["nftables"] as? [[String: Any]]
        else { return nil }
        let texts = NftablesListing.ruleTexts(listing)
        var sets: [String: [Any]] = [:]
        var chains: [FilterChain] = []
        var rules: [(String, FilterRule)] = []
        for object in objects {
            if let set = object["set"] as? [String: Any], let key = Self.key(set, name: set["name"]) {
                sets[key] = set["elem"] as? [Any] ?? []
            }
        }
        for object in objects {
            if let chain = object["chain"] as? [String: Any], let family = chain["family"] as? String,
                let table = chain["table"] as? String, let name = chain["name"] as? String,
                !skippingTables.contains("\(family) \(table)")
            {
                chains.append(
                    FilterChain(
                        source: .nftables,
                        family: family,
                        table: table,
                        name: name,
                        hook: chain["hook"] as? String,
                        policy: chain["policy"] as? String,
                        rules: []
                    )
                )
            }
            if let rule = object["rule"] as? [String: Any], let key = Self.key(rule, name: rule["chain"]),
                let handle = rule["handle"] as? Int, let expressions = rule["expr"] as? [[String: Any]]
            {
                let reader = NftablesExpressionReader(sets: sets, setPrefix: Self.key(rule, name: "") ?? "")
                var parsed = reader.rule(expressions)
                parsed.handle = handle
                parsed.text = texts[key + " \(handle)"] ?? ""
                rules.append((key, parsed))
            }
        }
        for (key, rule) in rules {
            guard let index = chains.firstIndex(where: { "\($0.family) \($0.table) \($0.name)" == key }) else {
                continue
            }
            chains[index].rules.append(rule)
        }
        return FilterRuleset(chains: chains)
    }

    /// `family table name`, the key of a chain or set within the rule set.
    private static func key(_ object: [String: Any], name: Any?) -> String? {
        guard let family = object["family"] as? String, let table = object["table"] as? String,
            let name = name as? String
        else { return nil }
        return "\(family) \(table) \(name)"
    }
}
