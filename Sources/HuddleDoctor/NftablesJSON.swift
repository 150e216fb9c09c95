import Foundation

/// `nft -j list ruleset` as `Decodable` types (libnftables-json(5)): the objects doctor reads (sets, chains,
/// rules) typed, the expressions of a rule as ``NftablesJSON`` values, whose shapes vary with the expression.
struct NftablesDocument: Decodable {
    let nftables: [NftablesObject]

    /// The document in `json`; nil when it is not an nftables rule set.
    static func decode(_ json: String) -> NftablesDocument? {
        try? JSONDecoder().decode(NftablesDocument.self, from: Data(json.utf8))
    }
}

/// One entry of the `nftables` array: a set, a chain, a rule, or something doctor does not read (metainfo, a
/// table, a map, …). An entry doctor cannot read is left out, never the whole rule set.
struct NftablesObject: Decodable {
    struct NamedSet: Decodable {
        let family: String
        let table: String
        let name: String
        let elem: [NftablesJSON]?
    }

    struct Chain: Decodable {
        let family: String
        let table: String
        let name: String
        let hook: String?
        let policy: String?
    }

    struct Rule: Decodable {
        let family: String
        let table: String
        let chain: String
        let handle: Int
        let expr: [NftablesJSON]
    }

    let set: NamedSet?
    let chain: Chain?
    let rule: Rule?

    enum CodingKeys: String, CodingKey {
        case set, chain, rule
    }

    init(from decoder: any Decoder) throws {
        let container = try? decoder.container(keyedBy: CodingKeys.self)
        set = try? container?.decodeIfPresent(NamedSet.self, forKey: .set)
        chain = try? container?.decodeIfPresent(Chain.self, forKey: .chain)
        rule = try? container?.decodeIfPresent(Rule.self, forKey: .rule)
    }
}

/// A JSON value of an nftables expression: `{"match": {"op": "==", "left": …, "right": 5353}}` and the like.
enum NftablesJSON: Decodable, Equatable, Sendable {
    case number(Int)
    case fraction(Double)
    case string(String)
    case bool(Bool)
    case array([NftablesJSON])
    case object([String: NftablesJSON])
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .number(value)
        } else if let value = try? container.decode(Double.self) {
            self = .fraction(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([NftablesJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: NftablesJSON].self))
        }
    }

    /// The member `key` of an object; nil for a missing member or a value that is not an object.
    subscript(key: String) -> NftablesJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var int: Int? {
        if case .number(let value) = self { return value }
        return nil
    }

    var array: [NftablesJSON]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The kind and body of a one-member object, the form of every expression and statement
    /// (`{"accept": null}`, `{"payload": {…}}`).
    var tagged: (kind: String, body: NftablesJSON)? {
        guard case .object(let members) = self, let (kind, body) = members.first else { return nil }
        return (kind, body)
    }
}
