/// A D-Bus server address (D-Bus Specification, "Server Addresses"): `transport:key=value,…`, several separated by
/// `;`. Only the `unix` transport is reachable here, by `path` or, on Linux, by `abstract` name.
public struct DBusAddress: Sendable, Equatable {
    /// Where a Unix-domain socket of the bus is.
    public enum Socket: Sendable, Equatable {
        case path(String)
        case abstract(String)
    }

    public let socket: Socket

    /// The first `unix` address of `text` (`DBUS_SESSION_BUS_ADDRESS`), or nil when it names none.
    public init?(_ text: String) {
        for entry in text.split(separator: ";") {
            guard let colon = entry.firstIndex(of: ":"), entry[..<colon] == "unix" else { continue }
            var keys: [Substring: String] = [:]
            for pair in entry[entry.index(after: colon)...].split(separator: ",") {
                guard let equals = pair.firstIndex(of: "="),
                    let value = Self.unescaped(pair[pair.index(after: equals)...])
                else { continue }
                keys[pair[..<equals]] = value
            }
            if let path = keys["path"] {
                socket = .path(path)
                return
            }
            if let name = keys["abstract"] {
                socket = .abstract(name)
                return
            }
        }
        return nil
    }

    /// A value with its `%XX` escapes undone (the specification's "optionally escaped bytes").
    static func unescaped(_ value: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = value.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
