import HuddleErrors
/// Signatures read into types (D-Bus Specification, "Valid Signatures"): at most 255 bytes, arrays and structs
/// each nested at most 32 deep, a dictionary entry only as an array's element with a basic key, no empty struct.
enum DBusSignature {
    static let maximumLength = 255
    static let maximumNesting = 32

    /// The complete types `text` lists, in order.
    static func parse(_ text: String) throws(NotificationError) -> [DBusType] {
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumLength else {
            throw NotificationError(.malformed, "a signature of \(bytes.count) bytes, over 255")
        }
        var index = 0
        var types: [DBusType] = []
        while index < bytes.count {
            types.append(try completeType(bytes, &index, arrays: 0, structs: 0))
        }
        return types
    }

    /// The one complete type `text` is (a variant's signature).
    static func single(_ text: String) throws(NotificationError) -> DBusType {
        let types = try parse(text)
        guard types.count == 1 else {
            throw NotificationError(.malformed, "a variant's signature \"\(text)\" is not one complete type")
        }
        return types[0]
    }

    private static func completeType(
        _ bytes: [UInt8],
        _ index: inout Int,
        arrays: Int,
        structs: Int
    ) throws(NotificationError) -> DBusType {
        guard index < bytes.count else { throw NotificationError(.malformed, "a signature ends inside a type") }
        let code = bytes[index]
        index += 1
        if let basic = basicTypes[code] { return basic }
        switch code {
        case UInt8(ascii: "a"):
            guard arrays < maximumNesting else { throw NotificationError(.malformed, "arrays nested over 32 deep") }
            if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
                index += 1
                let key = try completeType(bytes, &index, arrays: arrays + 1, structs: structs)
                guard key.isBasic else { throw NotificationError(.malformed, "a dictionary key that is not basic") }
                let value = try completeType(bytes, &index, arrays: arrays + 1, structs: structs)
                guard index < bytes.count, bytes[index] == UInt8(ascii: "}") else {
                    throw NotificationError(.malformed, "a dictionary entry of other than two types")
                }
                index += 1
                return .array(.dictEntry(key, value))
            }
            return .array(try completeType(bytes, &index, arrays: arrays + 1, structs: structs))
        case UInt8(ascii: "("):
            guard structs < maximumNesting else { throw NotificationError(.malformed, "structs nested over 32 deep") }
            var fields: [DBusType] = []
            while index < bytes.count, bytes[index] != UInt8(ascii: ")") {
                fields.append(try completeType(bytes, &index, arrays: arrays, structs: structs + 1))
            }
            guard index < bytes.count, !fields.isEmpty else {
                throw NotificationError(.malformed, "an empty or unclosed struct in a signature")
            }
            index += 1
            return .structure(fields)
        default:
            throw NotificationError(.malformed, "a signature with the type code \(code), unknown or out of place")
        }
    }

    private static let basicTypes: [UInt8: DBusType] = [
        UInt8(ascii: "y"): .byte, UInt8(ascii: "b"): .boolean, UInt8(ascii: "n"): .int16, UInt8(ascii: "q"): .uint16,
        UInt8(ascii: "i"): .int32, UInt8(ascii: "u"): .uint32, UInt8(ascii: "x"): .int64, UInt8(ascii: "t"): .uint64,
        UInt8(ascii: "d"): .double, UInt8(ascii: "s"): .string, UInt8(ascii: "o"): .objectPath,
        UInt8(ascii: "g"): .signature, UInt8(ascii: "h"): .unixFD, UInt8(ascii: "v"): .variant,
    ]
}
