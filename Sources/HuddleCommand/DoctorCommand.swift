import ArgumentParser
import HuddleDNS
import HuddleDiscovery
import HuddleMDNSCore

/// `huddle doctor`: why the other device does not show up, and what to do about it.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Explain why peers are not found, and how to fix it.",
        discussion: """
            It checks what a session with the same --interface, --deny-interface, --ipv4 and --ipv6 would meet:

            - Interfaces: which ones the session would use, and why it leaves each other one out.
            - Multicast: it asks on each used interface (mDNS, RFC 6762) and listens for --timeout seconds, then \
            tells how many devices answered, and from which addresses.
            - Packet filter: nftables, iptables and ip6tables rules that drop mDNS (UDP 5353) or the session's \
            TCP port (--port), named by table, chain and handle. Reading them needs root.
            - Port 5353: which other programs hold it (Avahi). Huddle shares the port with them; both answer.
            - Isolation: no answer although other hosts are there (neighbour table, default route), as on guest \
            Wi-Fi or behind an access point with client isolation.

            Each finding has a code, a severity (error, warning, info), a message and the fix: a command to \
            run (firewall-cmd, ufw, nft, iptables) or a step to take. When multicast cannot get through, \
            connect directly with --peer HOST[:PORT].

            Exit status: 0 when nothing is wrong (info findings only), 3 when a problem was found, 64 for \
            a bad command line.

            --json prints one JSON object: {"ok", "interfaces": [{"name", "used", "excluded", "reason", \
            "addresses"}], "multicast": {"questions", "seconds", "interfaces": [{"interface", "families", \
            "responses", "answered", "devices": [{"addresses", "advertised", "thisHost"}]}]}, "port5353", \
            "firewall": [{"tool", "status"}], "findings": [{"code", "severity", "message", "fix", \
            "interfaces", "rule": {"tool", "family", "table", "chain", "handle", "text"}}]}.

            Examples:
              huddle doctor                          check everything
              sudo huddle doctor                     also read the packet filter rules
              huddle doctor --interface wlan0 --port 5454
              huddle doctor --json | jq '.findings[].fix'
            """
    )

    @Flag(help: "Print one JSON object instead of the text report.")
    var json = false

    @Option(help: ArgumentHelp("Listen this many seconds for answers on each interface.", valueName: "seconds"))
    var timeout: Double = 2

    @Option(
        help: ArgumentHelp(
            "Also ask for this session's service type (huddle chat and peers use TypingTogether).",
            valueName: "id"
        )
    )
    var session = "TypingTogether"

    @Option(
        help: ArgumentHelp(
            "The TCP port the session is given with --port, to check the packet filter for it (default: random).",
            valueName: "port"
        )
    )
    var port: Int?

    @OptionGroup var network: NetworkOptions

    func validate() throws {
        if !(self.timeout > 0 && self.timeout <= 60) {
            throw ValidationError("--timeout takes a number of seconds above 0, at most 60")
        }
        if let port, !(1...65535).contains(port) { throw ValidationError("--port takes 1 to 65535") }
    }

    func run() async throws {
        let configuration = self.network.configuration()
        var observed = DoctorObservations()
        observed.families = configuration.families
        observed.sessionPort = self.port.map { UInt16($0) }
        observed.listenSeconds = self.timeout
        do {
            observed.interfaces = try InterfaceSurvey.current(configuration: configuration)
        } catch {
            observed.interfaceError = "\(error)"
        }
        observed.portHolders = PortHolders.current()  // before the check's own sockets join them
        (observed.rulesets, observed.firewall) = DoctorProbes.firewall()
        observed.evidence = DoctorProbes.linkEvidence()
        let names = [dnssdServicesName, MDNSServiceType(sessionID: self.session).browseName]
        if observed.interfaces.contains(where: \.isUsed) {
            let milliseconds = Int(self.timeout * 1000)
            if let outcome = try? await MDNSMulticastProbe.run(
                configuration: configuration,
                questions: names.map { DNSQuestion(name: $0, type: .ptr) },
                duration: .milliseconds(milliseconds),
                repeatAfter: .seconds(1)  // RFC 6762 §5.2: at least one second between the first two queries
            ) {
                let own = Set(observed.interfaces.flatMap(\.interface.addresses))
                observed.answers = InterfaceAnswers.from(outcome, families: configuration.families, ownAddresses: own)
                observed.socketFailures = outcome.socketFailures
            }
        }
        let report = DoctorReport(
            observed: observed,
            findings: DoctorDiagnosis.findings(observed),
            questions: names.map { ServiceFormatter.hostText($0) + " PTR" }
        )
        if self.json {
            Output.json(report.jsonObject)
        } else {
            for line in report.textLines { Output.line(line) }
        }
        if report.hasProblems { throw ExitCode.problemsFound }
    }
}

extension MDNSInterface {
    /// Every address of the interface, IPv4 then IPv6.
    var addresses: [MDNSAddress] { self.ipv4.map { .v4($0.address) } + self.ipv6.map { .v6($0.address) } }
}
