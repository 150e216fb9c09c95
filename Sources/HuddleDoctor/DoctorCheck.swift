import HuddleDNS
package import HuddleDiscovery
import HuddleMDNSCore

/// One run of `huddle doctor`: reads the system (interfaces, who holds port 5353, the packet filter, the neighbour
/// table), asks on each used interface by multicast, and judges what it saw (``DoctorDiagnosis``). The reads are the
/// thin part (``DoctorProbes``, ``MDNSMulticastProbe``); everything judged is pure and tested apart.
package struct DoctorCheck: Sendable {
    /// The interfaces and families a session would use.
    package var configuration: DiscoveryConfiguration
    /// The session ID whose service type is asked for besides the list of service types.
    package var sessionID: String
    /// The session's TCP port, when given (`--port`); nil for a random one.
    package var sessionPort: UInt16?
    /// How long to listen for answers on each interface.
    package var listenSeconds: Double

    package init(configuration: DiscoveryConfiguration, sessionID: String, sessionPort: UInt16?, listenSeconds: Double)
    {
        self.configuration = configuration
        self.sessionID = sessionID
        self.sessionPort = sessionPort
        self.listenSeconds = listenSeconds
    }

    /// Reads, asks, listens, and judges.
    package func run() async -> DoctorReport {
        var observed = DoctorObservations()
        observed.families = self.configuration.families
        observed.sessionPort = self.sessionPort
        observed.listenSeconds = self.listenSeconds
        do {
            observed.interfaces = try InterfaceSurvey.current(configuration: self.configuration)
        } catch {
            observed.interfaceError = "\(error)"
        }
        observed.portHolders = PortHolders.current()  // before the check's own sockets join them
        (observed.rulesets, observed.firewall) = await DoctorProbes.firewall()
        observed.evidence = await DoctorProbes.linkEvidence()
        let names = [dnssdServicesName, MDNSServiceType(sessionID: self.sessionID).browseName]
        if observed.interfaces.contains(where: \.isUsed) {
            let milliseconds = Int(self.listenSeconds * 1000)
            if let outcome = try? await MDNSMulticastProbe.run(
                configuration: self.configuration,
                questions: names.map { DNSQuestion(name: $0, type: .ptr) },
                duration: .milliseconds(milliseconds),
                repeatAfter: .seconds(1)  // RFC 6762 §5.2: at least one second between the first two queries
            ) {
                let own = Set(observed.interfaces.flatMap(\.interface.addresses))
                observed.answers = InterfaceAnswers.from(
                    outcome,
                    families: self.configuration.families,
                    ownAddresses: own
                )
                observed.socketFailures = outcome.socketFailures
            }
        }
        return DoctorReport(
            observed: observed,
            findings: DoctorDiagnosis.findings(observed),
            questions: names.map { $0.hostText + " PTR" }
        )
    }
}

extension MDNSInterface {
    /// Every address of the interface, IPv4 then IPv6.
    var addresses: [MDNSAddress] { self.ipv4.map { .v4($0.address) } + self.ipv6.map { .v6($0.address) } }
}
