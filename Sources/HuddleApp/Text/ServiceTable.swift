import HuddleDNS
import HuddleDoctor
public import HuddleMDNSCore

/// How `discover` shows DNS-SD services: a table row or a JSON record per browse event.
public struct ServiceTable: Sendable {
    /// Interface names by index, for IPv6 link-local scopes.
    public var interfaceNames: [Int: String]

    public init(interfaceNames: [Int: String]) {
        self.interfaceNames = interfaceNames
    }

    /// `10.0.0.1`, or `fe80::1%eth0` for an address that needs its interface.
    public func text(_ address: MDNSScopedAddress) -> String {
        guard address.needsScope else { return address.address.description }
        return "\(address.address)%\(interfaceNames[address.interfaceIndex] ?? String(address.interfaceIndex))"
    }

    /// A resolved service's JSON record (`added` or `updated`).
    public func record(_ event: String, _ service: MDNSResolvedService) -> ServiceRecord {
        ServiceRecord(
            event,
            service,
            addresses: service.addresses.map(text),
            interface: interfaceNames[service.interfaceIndex] ?? String(service.interfaceIndex)
        )
    }

    /// The column header of the rows.
    public static let header =
        "  "
        + [pad("NAME", 28), pad("TYPE", 16), pad("HOST:PORT", 30), pad("ADDRESSES", 40), "TXT"].joined(separator: " ")

    /// One line of the table: `+` added, `~` updated, `-` removed.
    public func row(_ symbol: String, _ service: MDNSResolvedService) -> String {
        let addresses = service.addresses.map(text).joined(separator: ", ")
        let columns = [
            Self.pad(service.instanceName, 28), Self.pad(service.type, 16),
            Self.pad("\(service.host.hostText):\(service.port)", 30), Self.pad(addresses, 40), service.txt.description,
        ]
        let line = symbol + " " + columns.joined(separator: " ")
        return String(line.reversed().drop { $0 == " " }.reversed())
    }

    /// A browse event as a table line and as a JSON record, and whether it is new (an instance or a type found:
    /// what `--count` counts).
    public func entry(for event: MDNSBrowseEvent) -> (line: String, record: any Encodable & Sendable, isNew: Bool) {
        switch event {
        case .added(let service):
            return (row("+", service), record("added", service), true)
        case .updated(let service):
            return (row("~", service), record("updated", service), false)
        case .removed(let name):
            let type = name.labels.dropFirst().dropLast().map { String(decoding: $0, as: UTF8.self) }
                .joined(separator: ".")
            let record = ServiceEventRecord.removed(name: name.firstLabel, type: type)
            return ("- " + Self.pad(name.firstLabel, 28) + " " + type, record, false)
        case .typeFound(let name):
            let type = Self.typeText(name)
            return ("+ \(type)", ServiceEventRecord.type(type, found: true), true)
        case .typeLost(let name):
            let type = Self.typeText(name)
            return ("- \(type)", ServiceEventRecord.type(type, found: false), false)
        }
    }

    /// `_http._tcp` for `_http._tcp.local.`.
    static func typeText(_ name: DNSName) -> String {
        let text = name.hostText
        return text.hasSuffix(".local") ? String(text.dropLast(".local".count)) : text
    }

    /// Pads to a column width in terminal cells.
    static func pad(_ text: String, _ width: Int) -> String { TerminalColumns.pad(text, width) }
}
