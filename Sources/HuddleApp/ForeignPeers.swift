import Foundation
public import HuddleForeign
public import ServiceLifecycle

/// The foreign protocols a command speaks, as one: their peers, found by name (docs/design.md, "Foreign peers").
///
/// The protocols are conformances of ``ForeignPeerService``: a third one is added where the services are built,
/// not here.
public struct ForeignPeers: Sendable {
    public let services: [any ForeignPeerService]
    /// The same services, as services of the command's service group.
    public let lifecycle: [any Service]
    /// The fingerprints pinned on first accepted use.
    public let pins: ForeignPinStore

    public init(_ services: [any ForeignPeerService & Service], pins: ForeignPinStore) {
        self.services = services
        self.lifecycle = services
        self.pins = pins
    }

    /// Every foreign peer found so far. Other Huddle programs, which also speak LocalSend, are left out: they are
    /// Huddle peers, reached by Huddle's own protocol.
    public func peers() async -> [(peer: ForeignPeer, service: any ForeignPeerService)] {
        var found: [(ForeignPeer, any ForeignPeerService)] = []
        for service in services {
            for peer in await service.peers() where !peer.isHuddle {
                found.append((peer, service))
            }
        }
        return found
    }

    /// Foreign peers that `name` names: "NAME", "localsend:NAME", or a fingerprint (at least 8 hex digits of
    /// its start).
    public func named(_ name: String) async -> [(peer: ForeignPeer, service: any ForeignPeerService)] {
        let protocols = self.protocols
        return await peers().filter { Self.names(name, $0.peer, among: protocols) }
    }

    /// The protocols spoken.
    public var protocols: [ForeignProtocol] { services.map(\.protocolName) }

    /// True when `name` can only mean a foreign peer: it starts with a spoken protocol's prefix.
    public func isForeignOnly(_ name: String) -> Bool { Self.split(name, among: protocols).0 != nil }

    /// Whether `name` names `peer`: its name, with or without its protocol's prefix, or the start of its
    /// certificate's fingerprint (8 hex digits at least).
    public static func names(_ name: String, _ peer: ForeignPeer, among protocols: [ForeignProtocol]) -> Bool {
        let (scheme, rest) = split(name, among: protocols)
        if let scheme, scheme != peer.protocol { return false }
        if peer.name == rest { return true }
        guard rest.count >= 8, rest.allSatisfy(\.isHexDigit), let fingerprint = peer.fingerprint else { return false }
        return fingerprint.uppercased().hasPrefix(rest.uppercased())
    }

    /// "localsend:Pixel" → (.localSend, "Pixel"); "kdeconnect:Pixel" → (.kdeConnect, "Pixel"); "Pixel" → (nil,
    /// "Pixel"). Only the prefixes of `protocols` count (``ForeignProtocol/key``, in any case).
    public static func split(_ name: String, among protocols: [ForeignProtocol]) -> (ForeignProtocol?, String) {
        for proto in protocols {
            let prefix = proto.key + ":"
            if name.lowercased().hasPrefix(prefix) { return (proto, String(name.dropFirst(prefix.count))) }
        }
        return (nil, name)
    }
}
