import Foundation
import HuddleDNS
import HuddleDiscovery
import HuddleMDNSCore

/// What `huddle doctor` prints: the observations, the findings, and whether any is a problem.
package struct DoctorReport: Encodable {
    var observed: DoctorObservations
    var findings: [DoctorFinding]
    /// The names the multicast check asked for.
    var questions: [String]

    package var hasProblems: Bool { self.findings.contains { $0.severity.isProblem } }

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
