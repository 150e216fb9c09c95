public import HuddleMDNSCore

#if canImport(Glibc)
import CNIOLinux
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One network interface and whether discovery uses it: the answer `huddle doctor` gives for each interface.
public struct SurveyedInterface: Hashable, Sendable {
    /// Its index, name and addresses (none for an interface without an address).
    public var interface: MDNSInterface
    /// Why discovery leaves it out, or nil when discovery uses it.
    public var exclusion: InterfaceExclusion?

    public init(interface: MDNSInterface, exclusion: InterfaceExclusion?) {
        self.interface = interface
        self.exclusion = exclusion
    }

    public var isUsed: Bool { self.exclusion == nil }
}

/// Which interfaces a session with a given ``DiscoveryConfiguration`` would use, and why it would leave the others
/// out: the same rules ``MDNSStack/start(configuration:eventLoop:)`` applies (RFC 6762 §14: every multicast
/// interface, each served on its own), so a report made with them names the interfaces the session really uses.
public enum InterfaceSurvey {
    /// Every interface of this network namespace, used ones and left-out ones, ordered by index. Interfaces without
    /// any address (listed by the kernel but unseen by `getifaddrs`) come last, left out by the configuration, as
    /// ``InterfaceExclusion/down`` or as ``InterfaceExclusion/noAddress``.
    public static func current(
        configuration: DiscoveryConfiguration = DiscoveryConfiguration()
    ) throws
        -> [SurveyedInterface]
    {
        let surveyed = try InterfaceScanner(configuration: configuration).survey().map {
            SurveyedInterface(interface: $0.found.interface, exclusion: $0.exclusion)
        }
        let seen = Set(surveyed.map(\.interface.name))
        let bare = Self.interfaceNames().filter { !seen.contains($0.name) }.map { entry in
            let flags = InterfaceFlags(name: entry.name)
            let chosen = configuration.exclusion(
                name: entry.name,
                isLoopback: flags.isLoopback || entry.name == "lo",
                isPointToPoint: flags.isPointToPoint
            )
            return SurveyedInterface(
                interface: MDNSInterface(index: entry.index, name: entry.name, ipv4: [], ipv6: []),
                exclusion: chosen ?? (flags.isUp ? .noAddress : .down)
            )
        }
        return surveyed + bare.sorted { $0.interface.index < $1.interface.index }
    }

    /// The kernel's interface names and indexes (if_nameindex(3)), addresses or not.
    static func interfaceNames() -> [(index: Int, name: String)] {
        guard let list = if_nameindex() else { return [] }
        defer { if_freenameindex(list) }
        var names: [(index: Int, name: String)] = []
        var cursor = list
        while cursor.pointee.if_index != 0, let name = cursor.pointee.if_name {
            names.append((Int(cursor.pointee.if_index), String(cString: name)))
            cursor += 1
        }
        return names
    }
}
