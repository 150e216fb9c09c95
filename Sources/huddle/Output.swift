import Foundation
import HuddleDNS
import HuddleMDNSCore

/// Writes lines to standard output at once (no buffering, so a pipe reader sees each line as it happens).
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(("huddle: " + text + "\n").utf8))
    }

    /// One JSON object on one line, keys sorted.
    static func json(_ object: [String: Any]) {
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object,
                options: [.sortedKeys, .withoutEscapingSlashes]
            )
        else { return }
        self.line(String(decoding: data, as: UTF8.self))
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
    static func hostText(_ name: DNSName) -> String {
        let text = name.description
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }

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

    func row(_ symbol: String, _ service: MDNSResolvedService) -> String {
        let addresses = service.addresses.map(self.text).joined(separator: ", ")
        let txt = service.txt.entries.isEmpty ? "" : "  [\(service.txt.description)]"
        return "\(symbol) \(service.instanceName)  \(service.type)  \(Self.hostText(service.host)):\(service.port)"
            + "  \(addresses)\(txt)"
    }
}
