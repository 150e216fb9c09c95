import Foundation

/// Reads the rule texts out of `nft -a list ruleset`, where each rule ends in `# handle N` (nft(8), "RULES").
enum NftablesListing {
    /// Each rule's text by `family table chain handle`, counters shortened to `counter`.
    static func ruleTexts(_ listing: String) -> [String: String] {
        var texts: [String: String] = [:]
        var blocks: [String] = []  // "table inet filter", "chain input", "other"
        for rawLine in listing.split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line == "}" {
                _ = blocks.popLast()
                continue
            }
            let words = line.split(separator: " ").map(String.init)
            if line.hasSuffix("{") || line.contains("{ # handle ") {
                switch words.first {
                case "table" where words.count >= 3: blocks.append("table \(words[1]) \(words[2])")
                case "chain" where words.count >= 2: blocks.append("chain \(words[1])")
                default: blocks.append("other")
                }
                continue
            }
            guard blocks.count >= 2, blocks[blocks.count - 2].hasPrefix("table "), let chain = blocks.last,
                chain.hasPrefix("chain "), let marker = line.range(of: " # handle ", options: .backwards),
                let handle = Int(line[marker.upperBound...])
            else { continue }
            let table = blocks[blocks.count - 2].dropFirst("table ".count)
            texts["\(table) \(chain.dropFirst("chain ".count)) \(handle)"] = Self.shortened(
                String(line[..<marker.lowerBound])
            )
        }
        return texts
    }

    /// `counter packets 12 bytes 3400` becomes `counter`; runs of spaces become one.
    static func shortened(_ text: String) -> String {
        let all = text.split(separator: " ")
        var words: [Substring] = []
        var index = 0
        while index < all.count {
            words.append(all[index])
            let isCounter =
                all[index] == "counter" && index + 4 < all.count && all[index + 1] == "packets"
                && all[index + 3] == "bytes"
            index += isCounter ? 5 : 1
        }
        return words.joined(separator: " ")
    }
}
