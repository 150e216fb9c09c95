import HuddleMDNSCore

/// What the multicast check's silence means, interface by interface.
///
/// An interface where another device answered is fine. One where none did is a warning when no interface heard
/// anyone (peers cannot be found at all), and only worth knowing when another interface did (a second network with
/// nobody on it). The advice depends on why it may be silent: the packet filter (found above), a network that keeps
/// devices apart (neighbours or a default route, yet no answer: guest Wi-Fi, AP client isolation, multicast
/// filtering), or simply no responder running nearby.
struct MulticastFindings {
    var answers: [InterfaceAnswers]
    var evidence: LinkEvidence
    /// Interfaces on which the packet filter certainly drops mDNS.
    var blockedInterfaces: Set<String>
    var listenSeconds: Double

    /// The direct-connection fallback for networks that block multicast.
    static let peerAdvice = "connect to the other device directly instead: huddle chat --peer HOST[:PORT]"

    func findings() -> [DoctorFinding] {
        let anyoneHeard = self.answers.contains { !$0.otherDevices.isEmpty }
        return self.answers.filter { $0.otherDevices.isEmpty && !$0.families.isEmpty }.map { silent in
            let name = silent.interface.name
            let seconds = Self.secondsText(self.listenSeconds)
            var message = "No other device answered mDNS on \(name) within \(seconds)."
            if silent.responders.contains(where: \.isThisHost) {
                message += " This host's own responder did, so sending and receiving work here."
            }
            let severity: DoctorFinding.Severity = anyoneHeard ? .info : .warning
            if self.blockedInterfaces.contains(name) {
                return DoctorFinding(
                    DoctorFinding.Code.noMDNSAnswers,
                    severity,
                    message + " The packet filter drops mDNS here (see its finding).",
                    fix: "apply the packet filter fix, then run huddle doctor again",
                    interfaces: [name]
                )
            }
            if let signs = self.evidence.isolationSigns(on: name) {
                return DoctorFinding(
                    DoctorFinding.Code.clientIsolationSuspected,
                    severity,
                    message + " Yet this network has other hosts (\(signs)): it may keep devices apart. Guest "
                        + "Wi-Fi and access points with client (AP) isolation block device-to-device traffic, and "
                        + "some switches and routers filter multicast.",
                    fix: "use a network without client isolation (or a wired link), or " + Self.peerAdvice,
                    interfaces: [name]
                )
            }
            return DoctorFinding(
                DoctorFinding.Code.noMDNSAnswers,
                severity,
                message + " Is the other device on this network, with huddle running (huddle peers)?",
                fix: "run huddle peers on the other device and huddle doctor again; if it still finds nothing, "
                    + Self.peerAdvice,
                interfaces: [name]
            )
        }
    }

    /// `2 s`, `0.5 s`.
    static func secondsText(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}
