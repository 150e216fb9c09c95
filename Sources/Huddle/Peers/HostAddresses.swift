public import HuddleDiscovery
import HuddleMDNSCore

/// This host's addresses on the interfaces a session uses (`DiscoveryConfiguration`), for others to dial: IPv4,
/// and IPv6 that is not link-local (a link-local address means nothing without its interface elsewhere).
public enum HostAddresses {
    public static func current(_ configuration: DiscoveryConfiguration = .init()) throws -> [String] {
        try InterfaceSurvey.current(configuration: configuration).filter(\.isUsed).flatMap { surveyed in
            surveyed.interface.ipv4.map { "\($0.address)" }
                + surveyed.interface.ipv6.map { "\($0.address)" }.filter { !$0.lowercased().hasPrefix("fe80") }
        }
    }
}
