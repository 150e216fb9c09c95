import HuddleDNS
public import HuddleMDNSCore
import NIOConcurrencyHelpers
public import NIOCore
import NIOPosix

/// ``ForeignAnnouncementRule`` applied to datagrams as the socket hands them over: the packet info
/// (`IP_PKTINFO`, asked for by ``ForeignDatagrams/sharedListener(port:on:)``) says where each was sent and which
/// interface it came in on, and the interfaces' subnets are read from the system.
///
/// The interfaces are read once, and again when a datagram fails the rule and the last reading is more than a
/// second old: an interface that came up since, or a new address, is taken into account, while a flood of
/// datagrams from off the link costs at most one reading a second.
public final class ForeignAnnouncementFilter: Sendable {
    private struct State {
        var rule: ForeignAnnouncementRule
        var readAt: ContinuousClock.Instant?
    }

    private let usesInterface: @Sendable (String, Bool, Bool) -> Bool
    private let state: NIOLockedValueBox<State>

    /// - Parameters:
    ///   - group: the IPv4 group announcements must be sent to; nil: any destination.
    ///   - usesInterface: which interfaces (name, loopback, point-to-point) the command uses.
    public init(group: String?, usesInterface: @escaping @Sendable (String, Bool, Bool) -> Bool) {
        self.usesInterface = usesInterface
        let rule = ForeignAnnouncementRule(interfaces: [], group: group.flatMap { IPv4Address($0) })
        state = NIOLockedValueBox(State(rule: rule, readAt: nil))
    }

    /// What the rule says of `envelope`.
    public func verdict(_ envelope: AddressedEnvelope<ByteBuffer>) -> ForeignAnnouncementRule.Verdict {
        let source = envelope.remoteAddress.ipAddress.flatMap { IPv4Address($0) }
        let info = envelope.metadata?.packetInfo
        let destination = info?.destinationAddress.ipAddress.flatMap { IPv4Address($0) }
        let now = ContinuousClock.now
        let (rule, stale) = state.withLockedValue { state in
            (state.rule, state.readAt.map { $0.duration(to: now) > .seconds(1) } ?? true)
        }
        let verdict = rule.verdict(source: source, destination: destination, interfaceIndex: info?.interfaceIndex)
        guard verdict == .otherInterface || verdict == .offLink, stale else { return verdict }
        let interfaces = (try? ForeignDatagrams.subnets(using: usesInterface)) ?? rule.interfaces
        let fresh = state.withLockedValue { state in
            state.rule.interfaces = interfaces
            state.readAt = now
            return state.rule
        }
        return fresh.verdict(source: source, destination: destination, interfaceIndex: info?.interfaceIndex)
    }
}

extension ForeignDatagrams {
    /// The IPv4 interfaces the command uses (``interfaces(using:)``), each with its subnets.
    public static func subnets(using usesInterface: (String, Bool, Bool) -> Bool) throws -> [MDNSInterface] {
        var byIndex: [Int: MDNSInterface] = [:]
        for device in try System.enumerateDevices() {
            guard case .v4 = device.address, device.interfaceIndex > 0,
                let text = device.address?.ipAddress, let own = IPv4Address(text),
                usesInterface(device.name, text.hasPrefix("127."), device.pointToPointDestinationAddress != nil)
            else { continue }
            let prefix = device.netmask?.ipAddress.flatMap { IPv4Address($0) }?.rawValue.nonzeroBitCount ?? 32
            var interface =
                byIndex[device.interfaceIndex]
                ?? MDNSInterface(index: device.interfaceIndex, name: device.name, ipv4: [], ipv6: [])
            interface.ipv4.append(MDNSPrefix(own, length: prefix))
            byIndex[device.interfaceIndex] = interface
        }
        return byIndex.values.sorted { $0.index < $1.index }
    }
}
