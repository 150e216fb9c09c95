import HuddleDNS
public import HuddleDiscovery
import HuddleMDNSCore
import HuddleWire
import NIOCore

/// Sessions on a network, found with DNS-SD over multicast DNS (RFC 6762, RFC 6763) through `HuddleDiscovery`.
///
/// The instance name is the display name (renamed by the responder on a conflict); the TXT record carries
/// `v` (protocol version), `id` (device ID hint, untrusted until TLS), `in` (instance token) and `m` (mode).
public final class MDNSPeerDirectory: PeerDirectory {
    public let stack: MDNSStack

    public init(stack: MDNSStack) {
        self.stack = stack
    }

    public func advertise(_ advert: PeerAdvert) async throws -> any PeerDirectoryRegistration {
        var txt = MDNSTXTRecord()
        try txt.set("v", Array(String(advert.version).utf8))
        try txt.set("id", Array(advert.deviceID.description.utf8))
        try txt.set("in", Array(advert.peer.rawValue.utf8))
        try txt.set("m", Array(advert.mode.rawValue.prefix(1).utf8))
        let type = try MDNSServiceType(parsing: advert.serviceType, strict: false)
        let name = Self.instanceName(advert.displayName)
        let registration = try await stack.register(
            MDNSServiceRegistration(instanceName: name, type: type, port: UInt16(advert.port), txt: txt)
        )
        return Registration(stack: stack, id: registration.id)
    }

    public func browse(serviceType: String) -> AsyncStream<PeerDirectoryEvent> {
        let (stream, continuation) = AsyncStream<PeerDirectoryEvent>.makeStream()
        guard let type = try? MDNSServiceType(parsing: serviceType, strict: false) else {
            continuation.finish()
            return stream
        }
        let events = stack.browse(type)
        let task = Task {
            var peers: [DNSName: PeerID] = [:]
            for await event in events {
                switch event {
                case .added(let service), .updated(let service):
                    guard let advert = Self.advert(from: service, serviceType: serviceType) else { continue }
                    peers[service.fullName] = advert.peer
                    continuation.yield(.found(advert))
                case .removed(let name):
                    if let peer = peers.removeValue(forKey: name) { continuation.yield(.lost(peer)) }
                case .typeFound, .typeLost:
                    continue
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// A valid DNS-SD instance name from a display name: at most 63 bytes of UTF-8, cut on a character boundary.
    static func instanceName(_ displayName: String) -> String {
        var name = ""
        for character in displayName where name.utf8.count + character.utf8.count <= 63 { name.append(character) }
        return name.isEmpty ? "Huddle" : name
    }

    static func advert(from service: MDNSResolvedService, serviceType: String) -> PeerAdvert? {
        func text(_ key: String) -> String? {
            guard case .some(.some(let bytes)) = service.txt[key] else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let token = text("in"), !token.isEmpty, token.utf8.count <= 64,
            let idText = text("id"), let deviceID = try? DeviceID(idText)
        else { return nil }
        let mode: PeerSessionMode =
            switch text("m") {
            case "s": .server
            case "c": .client
            default: .peer
            }
        var advert = PeerAdvert(
            serviceType: serviceType,
            peer: PeerID(rawValue: token),
            displayName: service.instanceName,
            deviceID: deviceID,
            mode: mode,
            port: Int(service.port)
        )
        advert.version = text("v").flatMap { UInt8($0) } ?? 1
        // IPv4 first; IPv6 link-local addresses need their interface, which SocketAddress takes by name only.
        let sorted = service.addresses.sorted { lhs, rhs in
            if case .v4 = lhs.address, case .v6 = rhs.address { return true }
            return false
        }
        for scoped in sorted where !scoped.needsScope {
            if let address = try? SocketAddress(ipAddress: scoped.address.description, port: Int(service.port)) {
                advert.addresses.append(address)
            }
        }
        return advert.addresses.isEmpty ? nil : advert
    }

    struct Registration: PeerDirectoryRegistration {
        let stack: MDNSStack
        let id: MDNSServiceID
        func withdraw() async { await stack.unregister(id) }
    }
}
