import Foundation
import HuddleDNS
import HuddleDiscovery
import HuddleMDNSCore
import Testing

@testable import HuddleDoctor

/// From observations to findings: silence on an interface, client isolation, other responders on port 5353, an
/// unusable port, and the exit status and report that follow.
@Suite("huddle doctor: diagnosis")
struct DoctorDiagnosisTests {
    static let eth0 = MDNSInterface(
        index: 2,
        name: "eth0",
        ipv4: [MDNSPrefix(IPv4Address(10, 0, 0, 1), length: 24)],
        ipv6: [MDNSPrefix(IPv6Address("fe80::1")!, length: 64)]
    )
    static let wlan0 = MDNSInterface(
        index: 3,
        name: "wlan0",
        ipv4: [MDNSPrefix(IPv4Address(192, 168, 1, 5), length: 24)],
        ipv6: []
    )
    static let peer = Responder(sources: [.v4(IPv4Address(10, 0, 0, 2))], advertised: [], isThisHost: false)
    static let ownAvahi = Responder(sources: [.v4(IPv4Address(192, 168, 1, 5))], advertised: [], isThisHost: true)

    static func observed(_ answers: [InterfaceAnswers], evidence: LinkEvidence = LinkEvidence()) -> DoctorObservations {
        var observed = DoctorObservations()
        observed.interfaces = [
            SurveyedInterface(interface: Self.eth0, exclusion: nil), .init(interface: Self.wlan0, exclusion: nil),
        ]
        observed.answers = answers
        observed.evidence = evidence
        return observed
    }

    @Test("when a device answered on one interface, silence on another is only worth knowing")
    func silenceBesideAnAnswer() {
        let answers = [
            InterfaceAnswers(interface: Self.eth0, families: [.v4, .v6], responders: [Self.peer], responseCount: 2),
            InterfaceAnswers(interface: Self.wlan0, families: [.v4], responders: [Self.ownAvahi], responseCount: 1),
        ]
        let report = DoctorReport(
            observed: Self.observed(answers),
            findings: DoctorDiagnosis.findings(Self.observed(answers)),
            questions: []
        )
        #expect(report.findings.map(\.code) == ["no-mdns-answers"])
        #expect(report.findings.first?.severity == .info)
        #expect(report.findings.first?.message.contains("This host's own responder did") == true)
        #expect(!report.hasProblems)
    }

    @Test("no answer anywhere, yet neighbours and a default route: client isolation, with --peer as the way out")
    func clientIsolation() throws {
        let answers = [InterfaceAnswers(interface: Self.wlan0, families: [.v4], responders: [], responseCount: 0)]
        let evidence = LinkEvidence(
            neighbours: ["wlan0": ["192.168.1.1", "192.168.1.7"]],
            defaultRouteInterfaces: ["wlan0"]
        )
        let findings = DoctorDiagnosis.findings(Self.observed(answers, evidence: evidence))
        let finding = try #require(findings.first)
        #expect(finding.code == "client-isolation-suspected")
        #expect(finding.severity == .warning)
        #expect(finding.message.contains("2 other hosts in its neighbour table and a default route"))
        #expect(finding.message.contains("client (AP) isolation"))
        #expect(finding.fix?.contains("--peer HOST[:PORT]") == true)
    }

    @Test("no answer and the packet filter drops mDNS there: the silence points to the filter's fix")
    func silenceExplainedByTheFilter() throws {
        var observed = Self.observed([
            InterfaceAnswers(interface: Self.eth0, families: [.v4, .v6], responders: [], responseCount: 0)
        ])
        observed.rulesets = [try #require(NftablesRuleset.parse(json: DoctorFixtures.hdtestJSON))]
        let findings = DoctorDiagnosis.findings(observed)
        #expect(findings.map(\.code) == ["firewall-drops-mdns", "no-mdns-answers"])
        #expect(findings.last?.message.contains("The packet filter drops mDNS here") == true)
        let report = DoctorReport(
            observed: observed,
            findings: findings,
            questions: ["_services._dns-sd._udp.local PTR"]
        )
        #expect(report.hasProblems)
        let text = report.textLines.joined(separator: "\n")
        #expect(text.contains("    fix: nft insert rule inet hdtest input handle 2 udp dport 5353 accept"))
        #expect(text.contains("Problems found: 2."))
        let encoded = try JSONEncoder().encode(report)
        let json = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(json["ok"] as? Bool == false)
        let first = try #require((json["findings"] as? [[String: Any]])?.first)
        #expect(first["code"] as? String == "firewall-drops-mdns")
        let rule = try #require(first["rule"] as? [String: Any])
        #expect(rule["handle"] as? Int == 2)
        #expect(Set(rule.keys) == ["tool", "family", "table", "chain", "handle", "text"])
        #expect(
            [rule["tool"], rule["family"], rule["table"], rule["chain"]] as? [String] == [
                "nftables", "inet", "hdtest", "input",
            ]
        )
        #expect(Set(first.keys) == ["code", "severity", "message", "fix", "interfaces", "rule"])
        #expect(first["fix"] as? String == "nft insert rule inet hdtest input handle 2 udp dport 5353 accept")
        let last = try #require((json["findings"] as? [[String: Any]])?.last)
        #expect(last["rule"] == nil)
        #expect(
            (json["multicast"] as? [String: Any])?["questions"] as? [String] == ["_services._dns-sd._udp.local PTR"]
        )
        #expect(json["port5353"] == nil)
    }

    @Test("a finding with nothing to fix has fix null in JSON, not left out")
    func fixIsNullWhenThereIsNone() throws {
        let report = DoctorReport(
            observed: DoctorObservations(),
            findings: [DoctorFinding("other-responder", .info, "Avahi shares the port.")],
            questions: []
        )
        let encoded = try JSONEncoder().encode(report)
        let json = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        let finding = try #require((json["findings"] as? [[String: Any]])?.first)
        #expect(finding["fix"] is NSNull)
        #expect(finding["severity"] as? String == "info")
        #expect(json["ok"] as? Bool == true)
        #expect(json["multicast"] == nil)
    }

    @Test("Avahi on port 5353 is reported as shared, not as a problem; an unknown owner as another user's")
    func otherResponders() throws {
        let avahi = PortHolders(
            socketCount: 2,
            holders: [.init(pid: 412, name: "avahi-daemon")],
            unownedSockets: 0,
            avahiFromPidFile: nil
        )
        let finding = try #require(DoctorDiagnosis.otherResponders(avahi))
        #expect(finding.code == "other-responder")
        #expect(finding.severity == .info)
        #expect(finding.message.contains("avahi-daemon (pid 412)"))
        #expect(finding.message.contains("SO_REUSEPORT"))
        let unknown = PortHolders(socketCount: 1, holders: [], unownedSockets: 1, avahiFromPidFile: 77)
        #expect(
            DoctorDiagnosis.otherResponders(unknown)?.message.contains(
                "1 socket of another user, most likely avahi-daemon (pid 77)"
            ) == true
        )
        #expect(
            DoctorDiagnosis.otherResponders(
                PortHolders(socketCount: 0, holders: [], unownedSockets: 0, avahiFromPidFile: nil)
            ) == nil
        )
    }

    @Test("port 5353 that cannot be opened, and no usable interface, are errors; errors come first")
    func errors() {
        var observed = Self.observed([
            InterfaceAnswers(interface: Self.eth0, families: [], responders: [], responseCount: 0)
        ])
        observed.socketFailures = [.v4: "Address already in use", .v6: "Address already in use"]
        observed.portHolders = PortHolders(
            socketCount: 1,
            holders: [.init(pid: 9, name: "mdnsd")],
            unownedSockets: 0,
            avahiFromPidFile: nil
        )
        let findings = DoctorDiagnosis.findings(observed)
        #expect(findings.map(\.code) == ["mdns-port-unavailable", "other-responder"])
        #expect(findings.first?.message.contains("IPv4: Address already in use") == true)
        var none = DoctorObservations()
        none.interfaces = [SurveyedInterface(interface: Self.eth0, exclusion: .virtualInterface(prefix: "veth"))]
        #expect(DoctorDiagnosis.findings(none).map(\.code) == ["no-usable-interface"])
    }

    @Test("tools that refuse to show their rules (no root) make one info finding naming each; missing ones none")
    func unreadableFirewall() throws {
        let readings = [
            FirewallReading(tool: "nftables", status: .failed("Operation not permitted")),
            FirewallReading(tool: "iptables", status: .failed("Permission denied (you must be root)")),
            FirewallReading(tool: "ip6tables", status: .notInstalled),
        ]
        let findings = DoctorDiagnosis.unreadableFirewall(readings)
        #expect(findings.map(\.code) == ["firewall-unreadable"])
        let message = try #require(findings.first?.message)
        #expect(message.contains("(nftables: Operation not permitted; iptables: Permission denied (you must be root))"))
        #expect(findings.first?.severity == .info)
        #expect(
            DoctorDiagnosis.unreadableFirewall([FirewallReading(tool: "nftables", status: .read(rules: 0))]).isEmpty
        )
    }

    @Test("each used interface's families with an address are the links the packet filter is asked about")
    func usedLinks() {
        var observed = Self.observed([])
        observed.families = [.v4]
        #expect(observed.usedLinks.map(\.interfaceName) == ["eth0", "wlan0"])
        observed.families = [.v6]
        #expect(observed.usedLinks == [FirewallFindings.Link(interfaceName: "eth0", family: .v6)])
    }
}
