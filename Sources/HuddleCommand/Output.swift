import Foundation
import Huddle
import HuddleApp
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

    /// One JSON object on one line (``JSONLine``).
    static func json(_ record: some Encodable) {
        guard let text = JSONLine.text(record) else { return }
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A record as the lines of a question (one JSON object; none when it cannot be encoded).
    static func jsonLines(_ record: some Encodable) -> [String] {
        JSONLine.text(record).map { [$0] } ?? []
    }

    /// A line as printed: with terminal controls made visible.
    static func text(_ text: String) -> String {
        DisplayText.escaped(text)
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

    /// A resolved service's JSON record (`added` or `updated`).
    func record(_ event: String, _ service: MDNSResolvedService) -> ServiceRecord {
        ServiceRecord(
            event,
            service,
            addresses: service.addresses.map(self.text),
            interface: self.interfaceNames[service.interfaceIndex] ?? String(service.interfaceIndex)
        )
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
