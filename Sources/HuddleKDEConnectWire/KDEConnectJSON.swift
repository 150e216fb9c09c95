/// A JSON value as KDE Connect packets carry it: bodies are open dictionaries, read field by field.
public enum KDEConnectJSON: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([KDEConnectJSON])
    case object([String: KDEConnectJSON])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([KDEConnectJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: KDEConnectJSON].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value.rounded() == value, abs(value) < 9e15 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// A whole number below 9e18 either way, or a string holding one (some implementations send `id` as a string).
    /// A string's number must be one a JSON number holds exactly (a `Double`): a packet is written with numbers, and
    /// must read back as it was read.
    public var int64: Int64? {
        switch self {
        case .number(let value) where value.rounded() == value && abs(value) < 9e18: Int64(value)
        case .string(let text):
            Int64(text).flatMap { value in
                let number = Double(value)
                return abs(number) < 9e18 && Int64(number) == value ? value : nil
            }
        default: nil
        }
    }

    public var strings: [String]? {
        guard case .array(let values) = self else { return nil }
        let strings = values.compactMap(\.string)
        return strings.count == values.count ? strings : nil
    }

    public subscript(key: String) -> KDEConnectJSON? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }
}
