import Foundation
import Huddle
public import HuddleForeign
import HuddleKDEConnectWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
public import ServiceLifecycle

/// KDE Connect, as a service of a Huddle command (docs/kdeconnect.md): announces this device, links with the
/// devices it hears or that dial it, pairs with them when a person says so, and shares texts and files.
public final class KDEConnectService: ForeignPeerService, Service {
    public let protocolName = ForeignProtocol.kdeConnect
    public let events: AsyncStream<ForeignEvent>
    let continuation: AsyncStream<ForeignEvent>.Continuation
    let configuration: KDEConnectConfiguration
    let credentials: KDEConnectCredentials
    let pins: ForeignPinStore
    let group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    let started = ContinuousClock.now
    let state = NIOLockedValueBox(State())
    let listeningPort = ForeignPortWaiter()

    /// One device heard from or linked with.
    struct Device {
        var identity: KDEConnectIdentity
        var host: String
        var link: (any Channel)?
        var certificate: KDEConnectCertificate?
        var pairing = KDEConnectPairing(paired: false)
        var pairWaiters: [CheckedContinuation<Bool, Never>] = []
    }

    /// A file a device offered, until it is answered.
    struct Offered {
        let deviceId: String
        let port: Int
        let offer: ForeignOffer
    }

    struct State {
        var devices: [String: Device] = [:]
        var dialling: Set<String> = []
        /// When the dials of the last second started: at most 10 a second, whatever floods of announcements say.
        var recentDials: [Double] = []
        var offered: [String: Offered] = [:]
        var announcer: KDEConnectAnnouncer?
    }

    public init(configuration: KDEConnectConfiguration, credentials: KDEConnectCredentials, pins: ForeignPinStore) {
        self.configuration = configuration
        self.credentials = credentials
        self.pins = pins
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(4096))
    }

    func emit(_ event: ForeignEvent) { continuation.yield(event) }

    var now: Double {
        let elapsed = started.duration(to: .now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    /// This device's identity, with the TCP port it listens on.
    var ownIdentity: KDEConnectIdentity {
        KDEConnectIdentity(
            deviceId: credentials.deviceId,
            deviceName: KDEConnectIdentity.cleanName(configuration.name).isEmpty
                ? "Huddle" : KDEConnectIdentity.cleanName(configuration.name),
            deviceType: configuration.deviceType,
            protocolVersion: configuration.protocolVersion,
            incomingCapabilities: KDEConnectConfiguration.capabilities,
            outgoingCapabilities: KDEConnectConfiguration.capabilities + [KDEConnectConfiguration.huddleMarker],
            tcpPort: listeningPort.port ?? configuration.port
        )
    }

    public var deviceId: String { credentials.deviceId }

    /// The TCP port links are accepted on, once they are; nil when the service ended first.
    public func listening() async -> Int? { await listeningPort.wait() }

    // MARK: Running

    public func run() async throws {
        defer {
            continuation.finish()
            listeningPort.settle(nil)
        }
        let server = try await listen()
        listeningPort.settle(server.localAddress?.port)
        let announcer =
            configuration.announces
            ? try? await KDEConnectAnnouncer.open(
                port: configuration.port,
                on: group,
                usesInterface: configuration.usesInterface
            ) : nil
        state.withLockedValue { $0.announcer = announcer }
        await withTaskGroup(of: Void.self) { tasks in
            if let announcer {
                tasks.addTask { [self] in
                    try? await announcer.run { [weak self] bytes, host in self?.announcementArrived(bytes, from: host) }
                }
                tasks.addTask { [self] in
                    // Every device that hears an announcement dials it, even when linked already, and the new
                    // link replaces the old (a file under way on it may be dropped): so announce at start, and
                    // again only while nothing is linked.
                    await announcer.announce(ownIdentity.packet.line())
                    for wait in [Duration.seconds(2), .seconds(8)] + Array(repeating: .seconds(120), count: 1_000) {
                        try? await Task.sleep(for: wait)
                        if Task.isCancelled { return }
                        if !hasLinks { await announcer.announce(ownIdentity.packet.line()) }
                    }
                }
            }
            tasks.addTask { [self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    tick()
                }
            }
            try? await gracefulShutdown()
            tasks.cancelAll()
        }
        await announcer?.close()
        let links = state.withLockedValue { $0.devices.values.compactMap(\.link) }
        for link in links { try? await link.close() }
        try? await server.close()
    }

    /// The TCP listener, on the first free port of ``KDEConnectConfiguration/tcpPorts``.
    func listen() async throws -> any Channel {
        var lastError: (any Error)?
        for port in configuration.tcpPorts {
            do {
                return try await ServerBootstrap(group: group)
                    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .childChannelInitializer { [weak self] channel in
                        guard let self else { return channel.close() }
                        return channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                self.linkHandler(.accepted, channel: channel)
                            )
                        }
                    }
                    .bind(host: "0.0.0.0", port: port).get()
            } catch {
                lastError = error
            }
        }
        throw lastError ?? KDEConnectError.noPort
    }

    func linkHandler(_ role: KDEConnectLinkHandler.Role, channel: any Channel) -> KDEConnectLinkHandler {
        let host = channel.remoteAddress?.ipAddress ?? ""
        return KDEConnectLinkHandler(
            role: role,
            own: ownIdentity,
            credentials: credentials,
            limits: configuration.limits,
            onLinked: { [weak self] linked in self?.linked(linked, host: host) },
            onPacket: { [weak self] packet in self?.packetArrived(packet, on: channel) },
            onClosed: { [weak self] _ in self?.closed(channel) }
        )
    }

    // MARK: Discovery and links

    func announcementArrived(_ bytes: [UInt8], from host: String) {
        guard bytes.count <= configuration.limits.maximumIdentityBytes,
            let packet = try? KDEConnectPacket(line: bytes.last == 0x0A ? Array(bytes.dropLast()) : bytes),
            let identity = try? KDEConnectIdentity(packet: packet), identity.deviceId != credentials.deviceId,
            configuration.linksWithHuddle
                || !identity.outgoingCapabilities.contains(KDEConnectConfiguration.huddleMarker)
        else { return }
        let now = self.now
        let dial = state.withLockedValue { state -> Bool in
            if state.devices[identity.deviceId]?.link != nil || state.dialling.contains(identity.deviceId) {
                return false
            }
            state.recentDials.removeAll { now - $0 >= 1 }
            guard state.dialling.count < configuration.limits.maximumPendingLinks, state.recentDials.count < 10 else {
                return false
            }
            state.dialling.insert(identity.deviceId)
            state.recentDials.append(now)
            return true
        }
        guard dial else { return }
        let port = identity.tcpPort ?? configuration.port
        ClientBootstrap(group: group)
            .connectTimeout(.seconds(5))
            .channelInitializer { [weak self] channel in
                guard let self else { return channel.close() }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        self.linkHandler(.dialled(identity), channel: channel)
                    )
                }
            }
            .connect(host: host, port: port)
            .whenFailure { [weak self] _ in
                _ = self?.state.withLockedValue { $0.dialling.remove(identity.deviceId) }
            }
    }

    func linked(_ linked: KDEConnectLinkHandler.Linked, host: String) {
        let identity = linked.identity
        var peer = Self.peer(identity, host: host, certificate: linked.certificate)
        let trust = (try? pins.load().trust(of: peer)) ?? .unpinned
        let replaced = state.withLockedValue { state -> (any Channel)? in
            state.dialling.remove(identity.deviceId)
            var device = state.devices[identity.deviceId] ?? Device(identity: identity, host: host)
            let old = device.link
            let sameCertificate = device.certificate == linked.certificate
            device.identity = identity
            device.host = host
            device.link = linked.channel
            device.certificate = linked.certificate
            if !sameCertificate || device.pairing.state == .unpaired {
                device.pairing = KDEConnectPairing(paired: trust.isPinned)
            }
            if state.devices[identity.deviceId] == nil, state.devices.count >= configuration.limits.maximumDevices,
                let idle = state.devices.first(where: { $0.value.link == nil })?.key
            {
                state.devices[idle] = nil
            }
            state.devices[identity.deviceId] = device
            return old === linked.channel ? nil : old
        }
        replaced?.close(promise: nil)
        if case .changed(let pinned) = trust { emit(.fingerprintChanged(peer, pinned: pinned.fingerprint)) }
        peer.fingerprint = linked.certificate.fingerprint
        emit(.found(peer))
    }

    func closed(_ channel: any Channel) {
        state.withLockedValue { state in
            for (id, device) in state.devices where device.link === channel {
                state.devices[id]?.link = nil
            }
        }
    }

    static func peer(_ identity: KDEConnectIdentity, host: String, certificate: KDEConnectCertificate?) -> ForeignPeer {
        ForeignPeer(
            id: .init(protocol: .kdeConnect, value: identity.deviceId),
            name: DisplayText.sanitized(identity.deviceName),
            address: "\(host):\(identity.tcpPort ?? 1716)",
            fingerprint: certificate?.fingerprint,
            deviceType: identity.deviceType,
            deviceModel: identity.outgoingCapabilities.contains(KDEConnectConfiguration.huddleMarker) ? "Huddle" : nil
        )
    }

    func peer(_ device: Device) -> ForeignPeer {
        Self.peer(device.identity, host: device.host, certificate: device.certificate)
    }

    var hasLinks: Bool { state.withLockedValue { $0.devices.values.contains { $0.link != nil } } }

    /// The devices linked now.
    public func peers() async -> [ForeignPeer] {
        state.withLockedValue { state in state.devices.values.filter { $0.link != nil }.map(peer) }
            .sorted { $0.name < $1.name }
    }

    /// Whether `peer` is paired here.
    public func isPaired(_ peer: ForeignPeer) -> Bool {
        state.withLockedValue { $0.devices[peer.id.value]?.pairing.state == .paired }
    }

    func send(_ packet: KDEConnectPacket, to deviceId: String) {
        guard let link = state.withLockedValue({ $0.devices[deviceId]?.link }) else { return }
        var packet = packet
        packet.id = Int64(Date().timeIntervalSince1970 * 1000)
        link.writeAndFlush(ByteBuffer(bytes: packet.line()), promise: nil)
    }
}

/// Why KDE Connect could not do what was asked, in words for the user.
public enum KDEConnectError: Error, Sendable, Hashable, CustomStringConvertible {
    case noPort
    case notLinked(String)
    case notPaired(String, reason: String)
    case payload(String)

    public var description: String {
        switch self {
        case .noPort: "no TCP port from 1716 to 1764 is free"
        case .notLinked(let name): "\(name) is not connected"
        case .notPaired(let name, let reason): "\(name) is not paired: \(reason)"
        case .payload(let reason): reason
        }
    }
}

extension ForeignTrust {
    var isPinned: Bool {
        if case .pinned = self { return true }
        return false
    }
}
