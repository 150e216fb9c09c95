/// Reads `nft -j list ruleset` (libnftables-json(5)) into chains and rules doctor can follow.
///
/// Each rule's `expr` list becomes conditions and a verdict; a match doctor does not understand becomes an
/// ``FilterCondition/unknown(_:)`` condition, so the rule counts as "may match" rather than being misread.
enum NftablesRuleset {
    /// The rule set in `json`, with rule texts from `listing` (`nft -a list ruleset`) where it has them; tables named
    /// in `skippingTables` (`"ip filter"`: those `iptables-nft` manages, read from `iptables-save` instead) are
    /// left out. Nil when `json` is not an nftables rule set.
    static func parse(json: String, listing: String = "", skippingTables: Set<String> = []) -> FilterRuleset? {
        guard let document = NftablesDocument.decode(json) else { return nil }
        let texts = NftablesListing.ruleTexts(listing)
        var sets: [String: [NftablesJSON]] = [:]
        var chains: [FilterChain] = []
        var rules: [(String, FilterRule)] = []
        for set in document.nftables.compactMap(\.set) {
            sets["\(set.family) \(set.table) \(set.name)"] = set.elem ?? []
        }
        for object in document.nftables {
            if let chain = object.chain, !skippingTables.contains("\(chain.family) \(chain.table)") {
                chains.append(
                    FilterChain(
                        source: .nftables,
                        family: chain.family,
                        table: chain.table,
                        name: chain.name,
                        hook: chain.hook,
                        policy: chain.policy,
                        rules: []
                    )
                )
            }
            if let rule = object.rule {
                let key = "\(rule.family) \(rule.table) \(rule.chain)"
                let reader = NftablesExpressionReader(sets: sets, setPrefix: "\(rule.family) \(rule.table) ")
                var parsed = reader.rule(rule.expr)
                parsed.handle = rule.handle
                parsed.text = texts[key + " \(rule.handle)"] ?? ""
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
}
