import Foundation
public import HuddleBase
public import HuddleForeign
import HuddleKDEConnectWire
import HuddleTransport
import HuddleWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
public import ServiceLifecycle

/// KDE Connect, as a service of a Huddle command (docs/kdeconnect.md): announces this device, links with the
/// devices it hears or that dial it, pairs with them when a person says so, and shares texts and files.
public final class KDEConnectService: ForeignPeerService, Service {
    public let protocolName = ForeignProtocol.kdeConnect
    /// Every subscriber's events (``ForeignPeerService/events``); the newest 4,096 wait for a slow reader.
    let broadcast = EventBroadcast<ForeignEvent>(bufferLimit: 4096)
    public var events: EventSubscription<ForeignEvent> { broadcast.subscribe() }
    let configuration: KDEConnectConfiguration
    let credentials: KDEConnectCredentials
    let pins: ForeignPinStore
    var group: any EventLoopGroup { configuration.eventLoopGroup }
    let state: NIOLockedValueBox<State>
    let listeningPort = ForeignPortWaiter()
    /// The links accepted and open, in all and per address (``KDEConnectLimits``).
    let admission: PeerAdmission

    /// The device table, with the service's links and pairing waits (``KDEConnectDevices``).
    typealias Devices = KDEConnectDevices<any Channel, CheckedContinuation<Bool, Never>>
    typealias Device = Devices.Device

    /// A file a device offered, until it is answered.
    struct Offered {
        let deviceId: String
        /// Where and with which certificate the device offered it: the download goes there, to that certificate.
        let host: String
        let certificate: [UInt8]
        let port: Int
        let offer: ForeignOffer
    }

    struct State {
        var devices: Devices
        var offered: [String: Offered] = [:]
        var announcer: ForeignAnnouncementSockets?
    }

    public init(configuration: KDEConnectConfiguration, credentials: KDEConnectCredentials, pins: ForeignPinStore) {
        self.configuration = configuration
        self.credentials = credentials
        self.pins = pins
        state = NIOLockedValueBox(
            State(devices: Devices(limits: configuration.limits, identify: { ObjectIdentifier($0) }))
        )
        admission = PeerAdmission(
            maximumTotal: configuration.limits.maximumLinks,
            maximumPerAddress: configuration.limits.maximumLinksPerAddress
        )
    }

    func emit(_ event: ForeignEvent) { broadcast.yield(event) }

    var now: ContinuousClock.Instant { configuration.now() }

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

    /// - Throws: ``ForeignPinError/unreadable(_:)`` before anything listens when the pin file exists but cannot be
    ///   read: every paired device would look new.
    public func run() async throws {
        defer {
            broadcast.finish()
            listeningPort.settle(nil)
        }
        _ = try pins.load()
        let servers = try await listen()
        listeningPort.settle(servers.first?.localAddress?.port)
        let announcer = configuration.announces ? await openAnnouncer() : nil
        state.withLockedValue { $0.announcer = announcer }
        await withTaskGroup(of: Void.self) { tasks in
            if let announcer {
                tasks.addTask { [self] in
                    do {
                        // Only what came the way announcements come: the device dials its source, so one from
                        // off the link, or on an interface the command does not use, is dropped
                        // (docs/threat-model.md, "Foreign peers").
                        try await announcer.run { [weak self] arrival in
                            guard arrival.verdict == .heed else { return }
                            self?.announcementArrived(arrival.bytes, from: arrival.host)
                        }
                    } catch {
                        // Ended by the service's shutdown: nothing to tell.
                        if !Task.isCancelled, !(error is CancellationError) {
                            configuration.logger.warning("KDE Connect announcements no longer heard: \(error)")
                        }
                    }
                }
                tasks.addTask { [self] in
                    // Every device that hears an announcement dials it, even when linked already, and the new
                    // link replaces the old (a file under way on it may be dropped): so announce at start, and
                    // again only while nothing is linked.
                    await announcer.send(ownIdentity.packet.line())
                    for wait in [Duration.seconds(2), .seconds(8)] + Array(repeating: .seconds(120), count: 1_000) {
                        try? await Task.sleep(for: wait)
                        if Task.isCancelled { return }
                        if !hasLinks { await announcer.send(ownIdentity.packet.line()) }
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
        let (links, waiters) = state.withLockedValue { $0.devices.endAll() }
        for waiter in waiters { waiter.resume(returning: false) }
        for link in links { try? await link.close() }
        for server in servers { try? await server.close() }
    }

    /// The TCP listeners: on the first of ``KDEConnectConfiguration/listenAddresses`` at the first free port of
    /// ``KDEConnectConfiguration/tcpPorts``, on the others at that same port (announcements name one).
    func listen() async throws -> [any Channel] {
        let addresses = configuration.listenAddresses
        guard let first = addresses.first else { throw KDEConnectError.noPort }
        var servers = [try await listen(on: first, ports: configuration.tcpPorts)]
        do {
            let port = servers[0].localAddress?.port ?? configuration.port
            for address in addresses.dropFirst() { servers.append(try await listen(on: address, ports: port...port)) }
        } catch {
            for server in servers { try? await server.close() }
            throw error
        }
        return servers
    }

    /// A TCP listener on `address`, at the first free port of `ports`.
    func listen(on address: String, ports: ClosedRange<Int>) async throws -> any Channel {
        var lastError: (any Error)?
        for port in ports {
            do {
                return try await configuration.streams.listen(host: address, port: port, group: group) {
                    [weak self] channel in
                    guard let self else { return channel.close() }
                    return channel.eventLoop.makeCompletedFuture {
                        // Each link holds a place while it is open: a host that opens connections and says
                        // nothing, or links under ever new IDs, holds its own share and no more.
                        try channel.pipeline.syncOperations.addHandlers(
                            ForeignConnectionCap(self.admission),
                            self.linkHandler(.accepted, channel: channel)
                        )
                    }
                }
            } catch {
                lastError = error
            }
        }
        throw lastError ?? KDEConnectError.noPort
    }

    func linkHandler(_ role: KDEConnectLinkHandler.Role, channel: any Channel) -> KDEConnectLinkHandler {
        // The address is read once the link is up: a dialled channel has none yet when it is set up.
        KDEConnectLinkHandler(
            role: role,
            own: ownIdentity,
            credentials: credentials,
            limits: configuration.limits,
            onLinked: { [weak self] linked in self?.linked(linked, host: channel.remoteAddress?.ipAddress ?? "") },
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
        guard state.withLockedValue({ $0.devices.mayDial(identity.deviceId, at: now) }) else { return }
        let port = identity.tcpPort ?? configuration.port
        let (streams, group) = (configuration.streams, group)
        Task { [weak self] in
            do {
                try await streams.connect(host: host, port: port, group: group, timeout: .seconds(5)) {
                    [weak self] channel in
                    guard let self else { return channel.close() }
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            self.linkHandler(.dialled(identity), channel: channel)
                        )
                    }
                }
            } catch {
                self?.state.withLockedValue { $0.devices.dialFailed(identity.deviceId) }
            }
        }
    }

    /// A link proved its certificate: it becomes the device's link unless ``KDEConnectLinkRule`` refuses it.
    func linked(_ linked: KDEConnectLinkHandler.Linked, host: String) {
        let identity = linked.identity
        var peer = Self.peer(identity, host: host, certificate: linked.certificate)
        // Pins that cannot be read (the file changed since the start) take no link: every device would look new.
        guard let trust = try? pins.load().trust(of: peer) else {
            linked.channel.close(promise: nil)
            return
        }
        let outcome = state.withLockedValue { state in
            let outcome = state.devices.link(
                linked.channel,
                identity: identity,
                host: host,
                certificate: linked.certificate,
                isPinned: trust.isPinned
            )
            if let ended = outcome.endedCertificate {
                state.offered = state.offered.filter { $0.value.certificate != ended }
            }
            return outcome
        }
        switch outcome.decision {
        case .refuseImpostor(let paired):
            linked.channel.close(promise: nil)
            // Said under the name of the device it poses as: the one the user knows.
            if let holder = outcome.holder { peer.name = self.peer(holder).name }
            emit(.fingerprintChanged(peer, pinned: paired))
            return
        case .refuseFull:
            linked.channel.close(promise: nil)
            return
        case .take:
            break
        }
        outcome.replaced?.close(promise: nil)
        if let ended = outcome.ended.map({ self.peer($0) }) {
            emit(.pairingEnded(ended, reason: "another certificate took its place: what was pending for it ended"))
        }
        for waiter in outcome.waiters { waiter.resume(returning: false) }
        if case .changed(let pinned) = trust { emit(.fingerprintChanged(peer, pinned: pinned.fingerprint)) }
        peer.fingerprint = linked.certificate.fingerprint
        emit(.found(peer))
    }

    /// A link ended: a wait for its device's answer to pair ends with it.
    func closed(_ channel: any Channel) {
        let waiters = state.withLockedValue { $0.devices.closed(channel) }
        for waiter in waiters { waiter.resume(returning: false) }
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

    var hasLinks: Bool { state.withLockedValue { $0.devices.hasLinks } }

    /// The devices linked now.
    public func peers() async -> [ForeignPeer] {
        state.withLockedValue { state in state.devices.devices.values.filter { $0.link != nil }.map(peer) }
            .sorted { $0.name < $1.name }
    }

    /// Whether `peer` is paired here, with the certificate it was found with.
    public func isPaired(_ peer: ForeignPeer) -> Bool {
        state.withLockedValue { $0.devices.device(peer)?.pairing.state == .paired }
    }

    /// Writes `packet` on the link of `deviceId` while that device still shows `certificate`: a packet decided for
    /// one certificate never goes to another that took the ID since.
    func send(_ packet: KDEConnectPacket, to deviceId: String, certificate: KDEConnectCertificate?) {
        guard let certificate,
            let link = state.withLockedValue({ state -> (any Channel)? in
                guard let device = state.devices.devices[deviceId], device.certificate == certificate else {
                    return nil
                }
                return device.link
            })
        else { return }
        var packet = packet
        packet.id = Int64(Date().timeIntervalSince1970 * 1000)
        link.writeAndFlush(ByteBuffer(bytes: packet.line()), promise: nil)
    }
}

extension KDEConnectService {
    /// The announcement socket; nil (and logged) when it cannot be opened: devices then find this one only when
    /// they announce themselves and it dials them.
    func openAnnouncer() async -> ForeignAnnouncementSockets? {
        await ForeignAnnouncementSockets.openIfPossible(
            .broadcast,
            port: configuration.port,
            on: group,
            usesInterface: configuration.usesInterface,
            logger: configuration.logger,
            unusable: "KDE Connect announcements cannot be used"
        )
    }
}
