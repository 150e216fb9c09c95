import Foundation
import HuddleDNS
import HuddleDiscovery
import HuddleMDNSCore

/// What `huddle doctor` prints: the observations, the findings, and whether any is a problem.
package struct DoctorReport {
    var observed: DoctorObservations
    var findings: [DoctorFinding]
    /// The names the multicast check asked for.
    var questions: [String]

    package var hasProblems: Bool { self.findings.contains { $0.severity.isProblem } }

    /// The report as one JSON object (`--json`).
    package var jsonObject: [String: Any] {
        var object: [String: Any] = [
            "ok": !self.hasProblems,
            "interfaces": self.observed.interfaces.map(Self.json),
            "firewall": self.observed.firewall.map(Self.json),
            "findings": self.findings.map(Self.json),
        ]
        if let answers = self.observed.answers {
            object["multicast"] = [
                "questions": self.questions,
                "seconds": self.observed.listenSeconds,
                "interfaces": answers.map(Self.json),
            ]
        }
        if let holders = self.observed.portHolders {
            var port: [String: Any] = [
                "sockets": holders.socketCount,
                "holders": holders.holders.map { ["pid": $0.pid, "name": $0.name] },
                "otherUsersSockets": holders.unownedSockets,
            ]
            port["avahiPidFile"] = holders.avahiFromPidFile
            object["port5353"] = port
        }
        return object
    }

    static func json(_ surveyed: SurveyedInterface) -> [String: Any] {
        var object: [String: Any] = [
            "name": surveyed.interface.name,
            "index": surveyed.interface.index,
            "used": surveyed.isUsed,
            "addresses": Self.addresses(of: surveyed.interface),
        ]
        if let exclusion = surveyed.exclusion {
            object["excluded"] = Self.code(exclusion)
            object["reason"] = Self.reason(exclusion, name: surveyed.interface.name)
        }
        return object
    }

    static func json(_ answers: InterfaceAnswers) -> [String: Any] {
        let name = answers.interface.name
        return [
            "interface": name,
            "families": answers.families.map(\.description),
            "responses": answers.responseCount,
            "answered": answers.otherDevices.count,
            "devices": answers.responders.map { responder in
                [
                    "addresses": responder.sources.map { Self.text($0, interface: name) },
                    "advertised": responder.advertised.map { Self.text($0, interface: name) },
                    "thisHost": responder.isThisHost,
                ] as [String: Any]
            },
        ]
    }

    static func json(_ reading: FirewallReading) -> [String: Any] {
        switch reading.status {
        case .read(let rules): ["tool": reading.tool, "status": "read", "rules": rules]
        case .notInstalled: ["tool": reading.tool, "status": "not-installed"]
        case .failed(let error): ["tool": reading.tool, "status": "unreadable", "error": error]
        }
    }

    static func json(_ finding: DoctorFinding) -> [String: Any] {
        var object: [String: Any] = [
            "code": finding.code,
            "severity": finding.severity.rawValue,
            "message": finding.message,
            "fix": finding.fix.map { $0 as Any } ?? NSNull(),
            "interfaces": finding.interfaces,
        ]
        object["rule"] = finding.rule?.jsonObject
        return object
    }

    /// `10.0.0.1/24`, `fe80::1/64`.
    static func addresses(of interface: MDNSInterface) -> [String] {
        interface.ipv4.map { "\($0.address)/\($0.length)" } + interface.ipv6.map { "\($0.address)/\($0.length)" }
    }

    /// An address as typed to reach it: `fe80::2%veth-a` for a link-local IPv6 one.
    static func text(_ address: MDNSAddress, interface: String) -> String {
        if case .v6(let v6) = address, v6.isLinkLocal { return "\(v6)%\(interface)" }
        return address.description
    }

    /// A stable name for why an interface is left out.
    static func code(_ exclusion: InterfaceExclusion) -> String {
        switch exclusion {
        case .denied: "deny-interface"
        case .notAllowed: "not-in-interface-list"
        case .loopback: "loopback"
        case .pointToPoint: "point-to-point"
        case .virtualInterface: "virtual"
        case .down: "down"
        case .noMulticast: "no-multicast"
        case .noAddress: "no-address"
        }
    }

    /// Why an interface is left out, and how to use it anyway where that makes sense.
    static func reason(_ exclusion: InterfaceExclusion, name: String) -> String {
        switch exclusion {
        case .denied: "left out by --deny-interface"
        case .notAllowed: "not named by --interface"
        case .loopback: "loopback: nothing on it reaches another device"
        case .pointToPoint: "point-to-point link (VPN, PPP); --interface \(name) uses it"
        case .virtualInterface(let prefix): "container/VM/VPN interface (\(prefix)*); --interface \(name) uses it"
        case .down: "down"
        case .noMulticast: "no multicast support"
        case .noAddress: "no IP address"
        }
    }
}
