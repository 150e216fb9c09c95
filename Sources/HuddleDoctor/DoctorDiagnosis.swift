import HuddleDiscovery
import HuddleMDNSCore

/// How reading one packet filter tool went.
struct FirewallReading: Hashable, Sendable {
    enum Status: Hashable, Sendable {
        /// Read; this many rules.
        case read(rules: Int)
        case notInstalled
        /// It runs but gave no rule set (`Operation not permitted` without root).
        case failed(String)
    }

    /// `nftables`, `iptables`, `ip6tables`.
    var tool: String
    var status: Status
}

/// Everything the checks gathered; ``DoctorDiagnosis`` turns it into findings.
struct DoctorObservations: Sendable {
    var interfaces: [SurveyedInterface] = []
    /// Why the interfaces could not be listed, if they could not.
    var interfaceError: String?
    var families: Set<MDNSFamily> = [.v4, .v6]
    /// What the multicast check heard, per interface; nil when it did not run.
    var answers: [InterfaceAnswers]?
    /// Families whose port 5353 socket could not be opened for the check.
    var socketFailures: [MDNSFamily: String] = [:]
    /// Who else holds port 5353, as read before the check opened its own sockets.
    var portHolders: PortHolders?
    var rulesets: [FilterRuleset] = []
    var firewall: [FirewallReading] = []
    var sessionPort: UInt16?
    /// The other ports the commands listen on, asked about like the session's.
    var otherPorts: [ListeningPort] = ListeningPort.foreign
    var evidence = LinkEvidence()
    /// How long the check listened, in seconds.
    var listenSeconds: Double = 2

    /// The interfaces and families the session would use: the packets the packet filter is asked about.
    var usedLinks: [FirewallFindings.Link] {
        self.interfaces.filter(\.isUsed).flatMap { surveyed in
            MDNSFamily.allCases.filter { family in
                self.families.contains(family)
                    && (family == .v4 ? !surveyed.interface.ipv4.isEmpty : !surveyed.interface.ipv6.isEmpty)
            }.map { FirewallFindings.Link(interfaceName: surveyed.interface.name, family: $0) }
        }
    }
}

/// Turns observations into findings, each with its fix. Pure, so every rule here is unit-tested.
enum DoctorDiagnosis {
    static func findings(_ observed: DoctorObservations) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        if let error = observed.interfaceError {
            findings.append(
                DoctorFinding(
                    DoctorFinding.Code.interfacesUnreadable,
                    .error,
                    "Could not list the network interfaces: \(error)"
                )
            )
        } else if !observed.interfaces.contains(where: \.isUsed) {
            findings.append(
                DoctorFinding(
                    DoctorFinding.Code.noUsableInterface,
                    .error,
                    "No interface is usable for discovery: every one is left out (see the list above).",
                    fix:
                        "bring up the interface that connects to the other device, or name it: huddle chat --interface NAME"
                )
            )
        }
        let asked = observed.answers.map { !$0.isEmpty } ?? false
        let failed = observed.socketFailures.sorted { $0.key == .v4 && $1.key == .v6 }
        if asked, !failed.isEmpty, failed.count == observed.families.count {
            let reasons = failed.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
            findings.append(
                DoctorFinding(
                    DoctorFinding.Code.mdnsPortUnavailable,
                    .error,
                    "Could not open UDP port 5353 (\(reasons)). Another program holds it without sharing it.",
                    fix: "stop the program that holds port 5353 without SO_REUSEPORT (sudo ss -lunp 'sport = :5353')"
                )
            )
        }
        let firewall = FirewallFindings(
            rulesets: observed.rulesets,
            links: observed.usedLinks,
            sessionPort: observed.sessionPort,
            otherPorts: observed.otherPorts
        )
        .findings()
        findings += firewall
        findings += Self.unreadableFirewall(observed.firewall)
        if let holders = observed.portHolders, let finding = Self.otherResponders(holders) { findings.append(finding) }
        let blocked = Set(firewall.filter { $0.severity == .error && $0.code.hasSuffix("-mdns") }.flatMap(\.interfaces))
        findings += MulticastFindings(
            answers: observed.answers ?? [],
            evidence: observed.evidence,
            blockedInterfaces: blocked,
            listenSeconds: observed.listenSeconds
        ).findings()
        return findings.enumerated().sorted { ($0.element.severity, $0.offset) < ($1.element.severity, $1.offset) }
            .map(\.element)
    }

    /// One finding for every tool that runs but would not show its rules (without root they refuse).
    static func unreadableFirewall(_ readings: [FirewallReading]) -> [DoctorFinding] {
        let failures = readings.compactMap { reading -> String? in
            guard case .failed(let error) = reading.status else { return nil }
            return "\(reading.tool): \(error)"
        }
        guard !failures.isEmpty else { return [] }
        return [
            DoctorFinding(
                DoctorFinding.Code.firewallUnreadable,
                .info,
                "Could not read the packet filter rules, so they were not checked (\(failures.joined(separator: "; "))).",
                fix: "run it as root to check them too: sudo huddle doctor"
            )
        ]
    }

    /// Avahi or another responder on port 5353 is no problem: Huddle shares the port and both answer.
    static func otherResponders(_ holders: PortHolders) -> DoctorFinding? {
        guard holders.socketCount > 0 else { return nil }
        var names = holders.holders.map { "\($0.name) (pid \($0.pid))" }
        if holders.unownedSockets > 0 {
            let likely = holders.avahiFromPidFile.map { ", most likely avahi-daemon (pid \($0))" } ?? ""
            names.append(
                "\(holders.unownedSockets) socket\(holders.unownedSockets == 1 ? "" : "s") of another user\(likely)"
            )
        }
        let message =
            "Also on UDP port 5353: \(names.joined(separator: ", ")). Huddle shares the port with it "
            + "(SO_REUSEADDR and SO_REUSEPORT), every multicast answer reaches both, and both answer for their own "
            + "names (RFC 6762 §15): nothing to do."
        return DoctorFinding(DoctorFinding.Code.otherResponder, .info, message)
    }
}
