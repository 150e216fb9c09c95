import HuddleDiscovery
import HuddleMDNSCore

/// A device that answered the multicast check: the addresses its answers came from and those it advertised.
struct Responder: Hashable, Sendable {
    var sources: [MDNSAddress]
    /// The A and AAAA addresses in its answers (RFC 6762 §6.2); they tie an IPv4 and an IPv6 answer to one device.
    var advertised: [MDNSAddress]
    /// Whether it is this host (its own Avahi or session, heard through multicast loopback).
    var isThisHost: Bool
}

/// What the multicast check heard on one interface.
struct InterfaceAnswers: Hashable, Sendable {
    var interface: MDNSInterface
    /// The families asked on (those the interface has an address of).
    var families: [MDNSFamily]
    var responders: [Responder]
    var responseCount: Int

    /// The devices other than this host.
    var otherDevices: [Responder] { self.responders.filter { !$0.isThisHost } }

    /// The answers of a check, one entry per interface asked on, each answer from an address of `ownAddresses`
    /// marked as this host's.
    static func from(
        _ outcome: MDNSMulticastProbe.Outcome,
        families: Set<MDNSFamily>,
        ownAddresses: Set<MDNSAddress>
    ) -> [InterfaceAnswers] {
        outcome.interfaces.map { interface in
            let responses = outcome.responses.filter { $0.interfaceIndex == interface.index }
            let asked = MDNSFamily.allCases.filter { family in
                families.contains(family) && outcome.socketFailures[family] == nil
                    && (family == .v4 ? !interface.ipv4.isEmpty : !interface.ipv6.isEmpty)
            }
            return InterfaceAnswers(
                interface: interface,
                families: asked,
                responders: Self.responders(responses, ownAddresses: ownAddresses),
                responseCount: outcome.responseCounts[interface.index] ?? responses.count
            )
        }
    }

    /// Responses grouped by device: two responses belong to one device when their source and advertised addresses
    /// overlap (a dual-stack responder answers over IPv4 and IPv6 with the same A and AAAA records).
    static func responders(_ responses: [MDNSMulticastProbe.Response], ownAddresses: Set<MDNSAddress>) -> [Responder] {
        var groups: [(keys: Set<MDNSAddress>, responder: Responder)] = []
        for response in responses {
            var keys = Set(response.advertisedAddresses)
            keys.insert(response.source)
            var merged = Responder(
                sources: [response.source],
                advertised: response.advertisedAddresses,
                isThisHost: false
            )
            var kept: [(keys: Set<MDNSAddress>, responder: Responder)] = []
            var position: Int?
            for group in groups {
                if group.keys.isDisjoint(with: keys) {
                    kept.append(group)
                    continue
                }
                position = position ?? kept.count
                keys.formUnion(group.keys)
                merged.sources = Self.union(group.responder.sources, merged.sources)
                merged.advertised = Self.union(group.responder.advertised, merged.advertised)
            }
            merged.isThisHost = merged.sources.contains { ownAddresses.contains($0) }
            kept.insert((keys, merged), at: position ?? kept.count)
            groups = kept
        }
        return groups.map(\.responder)
    }

    private static func union(_ first: [MDNSAddress], _ second: [MDNSAddress]) -> [MDNSAddress] {
        first + second.filter { !first.contains($0) }
    }
}
