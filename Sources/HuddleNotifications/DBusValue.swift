/// A D-Bus value of any type (D-Bus Specification, "Type System"). An array keeps its element type, so that an
/// empty one still has a signature; a dictionary is an array of ``dictEntry`` values.
public indirect enum DBusValue: Sendable, Equatable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// An index into the message's out-of-band file descriptors (never sent here).
    case unixFD(UInt32)
    case variant(DBusValue)
    case array(DBusType, [DBusValue])
    case structure([DBusValue])
    case dictEntry(DBusValue, DBusValue)

    /// The value's type.
    public var type: DBusType {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .unixFD: .unixFD
        case .variant: .variant
        case .array(let element, _): .array(element)
        case .structure(let fields): .structure(fields.map(\.type))
        case .dictEntry(let key, let value): .dictEntry(key.type, value.type)
        }
    }

    /// A dictionary of strings to variants (`a{sv}`), the shape of hints and properties.
    public static func stringVariantDictionary(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array(.dictEntry(.string, .variant), entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    /// An array of strings (`as`).
    public static func stringArray(_ strings: [String]) -> DBusValue { .array(.string, strings.map(DBusValue.string)) }

    /// The string of a `.string`, else nil.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The number of a `.uint32`, else nil.
    public var uint32Value: UInt32? {
        if case .uint32(let number) = self { return number }
        return nil
    }
}
