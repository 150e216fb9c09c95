import HuddleDiscovery
import HuddleMDNSCore

/// The plain-text report: what was checked, then the findings, each with its fix.
extension DoctorReport {
    package var textLines: [String] {
        var lines = ["Interfaces (those a session with these options would use):"]
        let width = min(16, self.observed.interfaces.map(\.interface.name.count).max() ?? 0)
        for surveyed in self.observed.interfaces {
            let name = TerminalColumns.pad(surveyed.interface.name, width)
            if let exclusion = surveyed.exclusion {
                lines.append("  excluded  \(name)  \(Self.reason(exclusion, name: surveyed.interface.name))")
            } else {
                lines.append("  used      \(name)  \(Self.addresses(of: surveyed.interface).joined(separator: ", "))")
            }
        }
        lines.append("")
        lines += self.multicastLines
        lines.append(self.portLine)
        lines.append("Packet filter: " + self.observed.firewall.map(Self.text).joined(separator: "; "))
        lines.append("")
        let problems = self.findings.filter { $0.severity.isProblem }.count
        lines.append(problems == 0 ? "No problems found." : "Problems found: \(problems).")
        for finding in self.findings {
            lines.append("  \(finding.severity.rawValue) [\(finding.code)] \(finding.message)")
            if let fix = finding.fix { lines.append("    fix: \(fix)") }
        }
        return lines
    }

    private var multicastLines: [String] {
        guard let answers = self.observed.answers else {
            return ["Multicast check: not run (no interface to ask on).", ""]
        }
        let seconds = MulticastFindings.secondsText(self.observed.listenSeconds)
        var lines = ["Multicast check (asked for \(self.questions.joined(separator: " and ")), listened \(seconds)):"]
        let width = min(16, answers.map(\.interface.name.count).max() ?? 0)
        for entry in answers {
            let name = entry.interface.name
            let families = TerminalColumns.pad(entry.families.map(\.description).joined(separator: ", "), 10)
            let others = entry.otherDevices
            var result: String
            if entry.families.isEmpty {
                result = "not asked (no port 5353 socket, or no address of the families in use)"
            } else if others.isEmpty {
                result = "no other device answered"
                if entry.responders.contains(where: \.isThisHost) { result += " (this host's own responder did)" }
            } else {
                let addresses = others.map { $0.sources.map { Self.text($0, interface: name) }.joined(separator: " ") }
                result =
                    "\(others.count) device\(others.count == 1 ? "" : "s") answered: \(addresses.joined(separator: ", "))"
            }
            lines.append("  \(TerminalColumns.pad(name, width))  \(families)  \(result)")
        }
        lines.append("")
        return lines
    }

    private var portLine: String {
        guard let holders = self.observed.portHolders else { return "UDP port 5353: not checked (no /proc)." }
        guard holders.socketCount > 0 else { return "UDP port 5353: no other program holds it." }
        let names = holders.holders.map { "\($0.name) (pid \($0.pid))" }
        let others = holders.unownedSockets > 0 ? ["\(holders.unownedSockets) socket(s) of another user"] : []
        return "UDP port 5353: also held by \((names + others).joined(separator: ", ")); Huddle shares it."
    }

    static func text(_ reading: FirewallReading) -> String {
        switch reading.status {
        case .read(let rules): "\(reading.tool) read (\(rules) rule\(rules == 1 ? "" : "s"))"
        case .notInstalled: "\(reading.tool) not installed"
        case .failed: "\(reading.tool) not readable"
        }
    }
}
