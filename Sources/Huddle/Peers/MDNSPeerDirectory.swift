import HuddleDNS
public import HuddleDiscovery
import HuddleMDNSCore
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore

/// Sessions on a network, found with DNS-SD over multicast DNS (RFC 6762, RFC 6763) through `HuddleDiscovery`.
///
/// The instance name is the display name (renamed by the responder on a conflict); the TXT record carries
/// `v` (protocol version), `id` (device ID hint, untrusted until TLS), `in` (instance token) and `m` (mode), then
/// the lobby's entries (``PeerLobby``).
public final class MDNSPeerDirectory: PeerDirectory {
    public let stack: MDNSStack

    public init(stack: MDNSStack) {
        self.stack = stack
    }

    public func advertise(_ advert: PeerAdvert) async throws -> any PeerDirectoryRegistration {
        let txt = try Self.txt(for: advert)
        let type = try MDNSServiceType(parsing: advert.serviceType, strict: false)
        let name = Self.instanceName(advert.displayName)
        let registration = try await stack.register(
            MDNSServiceRegistration(instanceName: name, type: type, port: UInt16(advert.port), txt: txt)
        )
        let held = HeldName()
        let watcher = Task {
            for await event in registration.events {
                switch event {
                case .registered(_, let name): held.hold(name)
                case .renamed: held.hold(nil)
                case .hostRenamed: continue
                }
            }
            held.end()
        }
        return Registration(stack: stack, id: registration.id, held: held, watcher: watcher)
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

    /// The TXT record of `advert`: `v`, `id`, `in` and `m`, then the lobby's entries by key
    /// (`docs/wire-protocol.md` §1).
    static func txt(for advert: PeerAdvert) throws -> MDNSTXTRecord {
        var txt = MDNSTXTRecord()
        try txt.set("v", Array(String(advert.version).utf8))
        try txt.set("id", Array(advert.deviceID.description.utf8))
        try txt.set("in", Array(advert.peer.rawValue.utf8))
        try txt.set("m", Array(advert.mode.rawValue.prefix(1).utf8))
        for (key, value) in advert.lobby.entries { try txt.set(key, Array(value.utf8)) }
        return txt
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
        advert.lobby = PeerLobby.received(service.txt.entries)
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
        let held: HeldName
        let watcher: Task<Void, Never>

        func withdraw() async {
            await stack.unregister(id)
            watcher.cancel()
            held.end()
        }

        func update(_ advert: PeerAdvert) async throws {
            await stack.update(id, txt: try MDNSPeerDirectory.txt(for: advert))
        }

        func advertisedName() async -> String? { await held.wait() }
    }
}

/// The instance name a registration holds: none while probing (RFC 6762 §8.1) or after losing it (§9); the
/// name once probing won it. Callers wait for a name, or for the end.
final class HeldName: Sendable {
    private struct State {
        var name: String?
        var ended = false
        var waiters: [CheckedContinuation<String?, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    /// Now holding `name` (nil: probing again under another name).
    func hold(_ name: String?) {
        let waiters = state.withLockedValue { state in
            state.name = name
            guard name != nil, !state.ended else { return [CheckedContinuation<String?, Never>]() }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: name) }
    }

    /// Withdrawn or shut down: no name from now on.
    func end() {
        let waiters = state.withLockedValue { state in
            state.ended = true
            state.name = nil
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    /// The name, as soon as one is held; nil once ended.
    func wait() async -> String? {
        await withCheckedContinuation { continuation in
            let ready: String?? = state.withLockedValue { state in
                if state.ended { return .some(nil) }
                if let name = state.name { return .some(name) }
                state.waiters.append(continuation)
                return nil
            }
            if case .some(let value) = ready { continuation.resume(returning: value) }
        }
    }
}
