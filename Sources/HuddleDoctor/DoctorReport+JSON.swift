import HuddleDiscovery
import HuddleMDNSCore

/// The report as one JSON object (`huddle doctor --json`; docs/doctor.md lists the fields).
extension DoctorReport {
    private enum Keys: String, CodingKey {
        case ok, interfaces, firewall, findings, multicast, port5353
    }

    package func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: Keys.self)
        try object.encode(!self.hasProblems, forKey: .ok)
        try object.encode(self.observed.interfaces.map(InterfaceRecord.init), forKey: .interfaces)
        try object.encode(self.observed.firewall.map(FirewallRecord.init), forKey: .firewall)
        try object.encode(self.findings, forKey: .findings)
        if let answers = self.observed.answers {
            let multicast = MulticastRecord(
                questions: self.questions,
                seconds: self.observed.listenSeconds,
                interfaces: answers.map(AnswersRecord.init)
            )
            try object.encode(multicast, forKey: .multicast)
        }
        if let holders = self.observed.portHolders {
            try object.encode(PortRecord(holders), forKey: .port5353)
        }
    }

    /// An interface, whether it is used, and why not.
    struct InterfaceRecord: Encodable {
        var name: String
        var index: Int
        var used: Bool
        var addresses: [String]
        var excluded: String?
        var reason: String?

        init(_ surveyed: SurveyedInterface) {
            self.name = surveyed.interface.name
            self.index = surveyed.interface.index
            self.used = surveyed.isUsed
            self.addresses = DoctorReport.addresses(of: surveyed.interface)
            if let exclusion = surveyed.exclusion {
                self.excluded = DoctorReport.code(exclusion)
                self.reason = DoctorReport.reason(exclusion, name: surveyed.interface.name)
            }
        }
    }

    /// How reading one packet filter went: `read` (with its rule count), `not-installed` or `unreadable`.
    struct FirewallRecord: Encodable {
        var tool: String
        var status: String
        var rules: Int?
        var error: String?

        init(_ reading: FirewallReading) {
            self.tool = reading.tool
            switch reading.status {
            case .read(let rules):
                self.status = "read"
                self.rules = rules
            case .notInstalled: self.status = "not-installed"
            case .failed(let error):
                self.status = "unreadable"
                self.error = error
            }
        }
    }

    /// The multicast check: what was asked, for how long, and who answered on each interface.
    struct MulticastRecord: Encodable {
        var questions: [String]
        var seconds: Double
        var interfaces: [AnswersRecord]
    }

    /// The answers on one interface.
    struct AnswersRecord: Encodable {
        struct Device: Encodable {
            var addresses: [String]
            var advertised: [String]
            var thisHost: Bool
        }

        var interface: String
        var families: [String]
        var responses: Int
        var answered: Int
        var devices: [Device]

        init(_ answers: InterfaceAnswers) {
            let name = answers.interface.name
            self.interface = name
            self.families = answers.families.map(\.description)
            self.responses = answers.responseCount
            self.answered = answers.otherDevices.count
            self.devices = answers.responders.map { responder in
                Device(
                    addresses: responder.sources.map { DoctorReport.text($0, interface: name) },
                    advertised: responder.advertised.map { DoctorReport.text($0, interface: name) },
                    thisHost: responder.isThisHost
                )
            }
        }
    }

    /// Who holds the mDNS port.
    struct PortRecord: Encodable {
        var sockets: Int
        var holders: [PortHolders.Holder]
        var otherUsersSockets: Int
        var avahiPidFile: Int?

        init(_ holders: PortHolders) {
            self.sockets = holders.socketCount
            self.holders = holders.holders
            self.otherUsersSockets = holders.unownedSockets
            self.avahiPidFile = holders.avahiFromPidFile
        }
    }
}

/// A finding as `huddle doctor --json` writes it; `fix` is null when there is nothing to fix.
extension DoctorFinding: Encodable {
    private enum Keys: String, CodingKey { case code, severity, message, fix, interfaces, rule }

    func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: Keys.self)
        try object.encode(code, forKey: .code)
        try object.encode(severity.rawValue, forKey: .severity)
        try object.encode(message, forKey: .message)
        try object.encode(fix, forKey: .fix)  // null, not left out
        try object.encode(interfaces, forKey: .interfaces)
        try object.encodeIfPresent(rule, forKey: .rule)
    }
}
