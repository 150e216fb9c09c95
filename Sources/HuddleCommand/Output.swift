import Foundation
import Huddle
import HuddleDNS
import HuddleDoctor
import HuddleMDNSCore

/// Writes lines to standard output at once (no buffering, so a pipe reader sees each line as it happens).
///
/// Everything printed goes through here, and here any character that could drive a terminal is made visible
/// (``DisplayText/escaped(_:)``): names, reasons and types from peers and from mDNS adverts cannot move the
/// cursor, retitle the window, set the clipboard (OSC 52) or reorder text, whichever path prints them.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((self.text(text) + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(("huddle: " + self.text(text) + "\n").utf8))
    }

    /// One JSON object on one line, keys sorted.
    static func json(_ object: [String: Any]) {
        guard let text = jsonText(object) else { return }
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A line as printed: with terminal controls made visible.
    static func text(_ text: String) -> String {
        DisplayText.escaped(text)
    }

    /// One JSON object as printed: keys sorted, and every character ``DisplayText/escaped(_:)`` would show
    /// written as a `\u` escape (the same JSON value, with no control character in the output).
    static func jsonText(_ object: [String: Any]) -> String? {
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object,
                options: [.sortedKeys, .withoutEscapingSlashes]
            )
        else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard text.unicodeScalars.contains(where: DisplayText.isEscaped) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if DisplayText.isEscaped(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: false)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// How services and addresses are shown.
struct ServiceFormatter {
    /// Interface names by index, for IPv6 link-local scopes.
    var interfaceNames: [Int: String]

    /// `10.0.0.1`, or `fe80::1%eth0` for an address that needs its interface.
    func text(_ address: MDNSScopedAddress) -> String {
        guard address.needsScope else { return address.address.description }
        return "\(address.address)%\(self.interfaceNames[address.interfaceIndex] ?? String(address.interfaceIndex))"
    }

    /// A host name without the trailing dot.
    static func hostText(_ name: DNSName) -> String { name.hostText }

    /// TXT as JSON: values as strings, attributes without `=` as true.
    static func txtObject(_ txt: MDNSTXTRecord) -> [String: Any] {
        var object: [String: Any] = [:]
        for entry in txt.entries {
            object[entry.key] = entry.value.map { String(decoding: $0, as: UTF8.self) } ?? true
        }
        return object
    }

    func json(_ event: String, _ service: MDNSResolvedService) -> [String: Any] {
        [
            "event": event,
            "name": service.instanceName,
            "type": service.type,
            "domain": service.domain,
            "host": Self.hostText(service.host),
            "port": Int(service.port),
            "addresses": service.addresses.map(self.text),
            "txt": Self.txtObject(service.txt),
            "interface": self.interfaceNames[service.interfaceIndex] ?? String(service.interfaceIndex),
        ]
    }

    /// The column header of ``row(_:_:)``.
    static let header =
        "  "
        + [pad("NAME", 28), pad("TYPE", 16), pad("HOST:PORT", 30), pad("ADDRESSES", 40), "TXT"]
        .joined(separator: " ")

    /// One line of the table: `+` added, `~` updated, `-` removed.
    func row(_ symbol: String, _ service: MDNSResolvedService) -> String {
        let addresses = service.addresses.map(self.text).joined(separator: ", ")
        let hostPort = "\(Self.hostText(service.host)):\(service.port)"
        let columns = [
            Self.pad(service.instanceName, 28), Self.pad(service.type, 16), Self.pad(hostPort, 30),
            Self.pad(addresses, 40), service.txt.description,
        ]
        let line = symbol + " " + columns.joined(separator: " ")
        return String(line.reversed().drop { $0 == " " }.reversed())
    }

    /// Pads to a column width in terminal cells (``TerminalColumns``).
    static func pad(_ text: String, _ width: Int) -> String { TerminalColumns.pad(text, width) }
}
