import Foundation
public import HuddleBase
public import HuddleForeign
import HuddleLocalSendWire
import HuddleTransport
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
public import ServiceLifecycle

/// LocalSend, as a service of a Huddle command: announces this device, finds others, serves the API, and sends
/// (docs/localsend.md).
public final class LocalSendService: ForeignPeerService, Service {
    public let protocolName = ForeignProtocol.localSend
    /// LocalSend has nothing to compare: a device is pinned on its first accepted use.
    public let pinsOnFirstUse = true
    /// Every subscriber's events (``ForeignPeerService/events``); the newest 4,096 wait for a slow reader.
    let broadcast = EventBroadcast<ForeignEvent>(bufferLimit: 4096)
    public var events: EventSubscription<ForeignEvent> { broadcast.subscribe() }
    let configuration: LocalSendConfiguration
    let credentials: LocalSendCredentials
    let group: any EventLoopGroup
    let client: LocalSendHTTPClient
    let inbox: LocalSendInbox
    let state: NIOLockedValueBox<State>
    let listeningPort = ForeignPortWaiter()
    /// The SHA-256 of files to send, kept per version of each file (and begun early by ``prepareToSend(files:)``).
    let digests = LocalSendFileDigests()
    /// The connections both servers hold open, in all and per address.
    let admission: PeerAdmission

    struct State {
        var devices: LocalSendDevices
        var multicast: ForeignAnnouncementSockets?
        /// The shared files, once hashed, and the page's HTTP port.
        var share: LocalSendShare?
        var sharePort: Int?
        /// Answers to announcements started but not yet past the rate rule: at most
        /// ``LocalSendService/maximumWaitingAnswers``, so a flood costs a bounded number of tasks.
        var waitingAnswers = 0
        /// Device infos on the multicast port that did not come the way announcements come, dropped.
        var droppedDatagrams = 0
    }

    /// Answers to announcements that may wait to start at once.
    static let maximumWaitingAnswers = 16

    public init(
        configuration: LocalSendConfiguration,
        credentials: LocalSendCredentials
    ) throws {
        let group = configuration.eventLoopGroup
        self.configuration = configuration
        self.credentials = credentials
        self.group = group
        var client = try LocalSendHTTPClient(credentials: credentials, group: group, streams: configuration.streams)
        client.pacing = configuration.pacing
        self.client = client
        let emit = broadcast
        inbox = LocalSendInbox(
            takesOffers: configuration.takesOffers,
            limits: configuration.limits,
            now: configuration.now,
            emit: { emit.yield($0) }
        )
        admission = PeerAdmission(
            maximumTotal: configuration.limits.maximumConnections,
            maximumPerAddress: configuration.limits.maximumConnectionsPerAddress
        )
        state = NIOLockedValueBox(
            State(devices: LocalSendDevices(ownFingerprint: credentials.fingerprint, limits: configuration.limits))
        )
    }

    /// The port the API listens on, once it does.
    public var port: Int? { listeningPort.port }
    public var fingerprint: String { credentials.fingerprint }

    func emit(_ event: ForeignEvent) { broadcast.yield(event) }

    var now: ContinuousClock.Instant { configuration.now() }

    /// What this device says about itself.
    func ownInfo(announce: Bool?) -> LocalSendDeviceInfo {
        LocalSendDeviceInfo(
            alias: configuration.alias,
            deviceModel: configuration.deviceModel,
            deviceType: configuration.deviceType,
            fingerprint: credentials.fingerprint,
            port: port ?? configuration.port,
            protocol: "https",
            download: configuration.share.map { $0.pass == nil } ?? false,
            announce: announce
        )
    }

    // MARK: Running

    /// The API's port once the server listens; nil when the service ended without listening.
    public func listening() async -> Int? { await listeningPort.wait() }

    public func run() async throws {
        defer {
            broadcast.finish()
            listeningPort.settle(nil)
            digests.cancelAll()
        }
        let share = try await makeShare()
        state.withLockedValue { $0.share = share }
        let servers = LocalSendServers()
        do {
            try await serve(share: share, on: servers)
        } catch {
            await servers.shutDown(within: Self.serverShutdownLimit)
            throw error
        }
        await servers.shutDown(within: Self.serverShutdownLimit)
    }

    /// How long the servers may take, once asked to stop, to serve the connections they accepted.
    static let serverShutdownLimit: Duration = .seconds(2)

    /// Starts the servers (the share page first, then the API) and the multicast announcer, and runs until the
    /// service is asked to stop.
    func serve(share: LocalSendShare?, on servers: LocalSendServers) async throws {
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            if let share, let shareConfiguration = configuration.share {
                let router = Router(context: LocalSendRequestContext.self)
                LocalSendShareRoutes(service: self, share: share).add(to: router, page: true)
                if shareConfiguration.receives {
                    LocalSendRoutes(service: self).addReceiving(to: router, register: false)
                }
                let port = try await startServer(
                    router,
                    tls: false,
                    ports: [shareConfiguration.httpPort, 0],
                    on: servers
                )
                state.withLockedValue { $0.sharePort = port }
            }
            let router = LocalSendRoutes(service: self).router()
            if let share, configuration.share?.pass == nil {
                LocalSendShareRoutes(service: self, share: share).add(to: router, page: false)
            }
            let port = try await startServer(router, tls: true, ports: [configuration.port, 0], on: servers)
            listeningPort.settle(port)
            if !configuration.probedHosts.isEmpty { tasks.addTask { [self] in try await probeHosts() } }
            let multicast = configuration.usesMulticast ? await openMulticast() : nil
            state.withLockedValue { $0.multicast = multicast }
            if let multicast {
                tasks.addTask { try await multicast.run { [weak self] in self?.multicastArrived($0) } }
                tasks.addTask { [self] in try await announce(on: multicast) }
            }
            try? await gracefulShutdown()
            tasks.cancelAll()
            await multicast?.close()
        }
    }

    /// LocalSend's multicast socket; nil (and logged) when it cannot be opened: the device is then found only by
    /// address, and finds others only when they announce to it over HTTP.
    func openMulticast() async -> ForeignAnnouncementSockets? {
        await ForeignAnnouncementSockets.openIfPossible(
            .multicast(group: configuration.multicastGroup),
            port: configuration.multicastPort,
            on: group,
            usesInterface: configuration.usesInterface,
            logger: configuration.logger,
            unusable: "LocalSend multicast cannot be used, found by address only"
        )
    }

    /// Hashes the shared files and describes them (size, type, SHA-256); nil when nothing is shared.
    func makeShare() async throws -> LocalSendShare? {
        guard let shared = configuration.share else { return nil }
        var files: [LocalSendChosenFile] = []
        for url in shared.files { files.append(try await chosen(url)) }
        let emit = broadcast
        return LocalSendShare(files: files, pin: shared.pin, now: configuration.now) { emit.yield($0) }
    }

    /// The page's HTTP port, once it listens (after ``listening()`` returns).
    public var sharePort: Int? { state.withLockedValue { $0.sharePort } }

    /// Lets a browser or an app take the shared files, or not.
    public func answer(_ request: ForeignDownloadRequest, allow: Bool) async {
        await state.withLockedValue { $0.share }?.answer(request.id, allow: allow)
    }

    /// Starts a server on each of ``LocalSendConfiguration/listenAddresses``: on the first address at the first of
    /// `ports` that is free (0: any), on the others at that same port (announcements name one).
    func startServer(
        _ router: Router<LocalSendRequestContext>,
        tls: Bool,
        ports: [Int],
        on servers: LocalSendServers
    ) async throws -> Int {
        let addresses = configuration.listenAddresses
        guard let first = addresses.first else { throw LocalSendError.unreachable("no address to listen on") }
        let port = try await startServer(router, tls: tls, at: first, ports: ports, on: servers)
        for address in addresses.dropFirst() {
            _ = try await startServer(router, tls: tls, at: address, ports: [port], on: servers)
        }
        return port
    }

    /// Starts a server on `address`, at the first of `ports` that is free (0: any).
    func startServer(
        _ router: Router<LocalSendRequestContext>,
        tls: Bool,
        at address: String,
        ports: [Int],
        on servers: LocalSendServers
    ) async throws -> Int {
        for port in ports {
            let (running, runningContinuation) = AsyncStream<Int>.makeStream()
            // Every connection takes a place in the service's admission, and an idle one is closed: a host that
            // opens connections and says nothing cannot take the process's descriptors (docs/localsend.md, "Limits").
            let admission = self.admission
            let http = HTTP1Channel.Configuration(
                additionalChannelHandlers: [ForeignConnectionCap(admission)],
                idleTimeout: TimeAmount(configuration.limits.idleTimeout)
            )
            let connection = HTTP1Channel(responder: Self.responder(router), configuration: http)
            let started: @Sendable (Int) -> Void = { port in
                runningContinuation.yield(port)
                runningContinuation.finish()
            }
            let service =
                tls
                ? configuration.serving.server(
                    try TLSChannel(connection, configuration: credentials.serverTLS()),
                    host: address,
                    port: port,
                    group: group,
                    running: started
                )
                : configuration.serving.server(connection, host: address, port: port, group: group, running: started)
            let server = servers.run(
                ClosureService {
                    do {
                        try await service.run()
                    } catch {
                        runningContinuation.finish()
                        throw error
                    }
                }
            )
            for await bound in running { return bound }
            // That port is taken: the server that failed has ended; try the next.
            _ = await server.result
        }
        throw LocalSendError.unreachable("no port to listen on at \(address)")
    }

    /// Answers each request with `router`'s response: a route's error as its status (Hummingbird's router does
    /// that), any other error as 500, a request the HTTP parser refused as the channel's 400. Every answer names
    /// the server (`Server: Huddle/VERSION`, ``HuddleVersion``).
    static func responder(_ router: Router<LocalSendRequestContext>) -> HTTPChannelHandler.Responder {
        let responder = router.buildResponder()
        let logger = Logger(label: "huddle.localsend", factory: { _ in SwiftLogNoOpLogHandler() })
        return { request, writer, channel in
            let context = LocalSendRequestContext(source: .init(channel: channel, logger: logger))
            let response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as HTTPParserError {
                throw error
            } catch {
                response = Response(status: .internalServerError)
            }
            var head = response.head
            head.headerFields[.server] = HuddleVersion.product
            try await writer.write(response: head, body: response.body)
        }
    }

    /// Announces at 0, 1 and 3 s, then every ``LocalSendConfiguration/announceInterval``.
    func announce(on multicast: ForeignAnnouncementSockets) async throws {
        let firsts: [Duration] = [.zero, .seconds(1), .seconds(2)]
        for wait in firsts {
            try await Task.sleep(for: wait)
            await multicast.send(Self.datagram(ownInfo(announce: true)))
        }
        while true {
            try await Task.sleep(for: configuration.announceInterval)
            await multicast.send(Self.datagram(ownInfo(announce: true)))
        }
    }

    // MARK: Discovery

    /// A device info as LocalSend's multicast carries it: JSON.
    static func datagram(_ info: LocalSendDeviceInfo) -> [UInt8] {
        (try? JSONEncoder().encode(info)).map(Array.init) ?? []
    }

    /// A datagram on the multicast port: recorded and answered as ``LocalSendAnnouncementRule`` decides.
    func multicastArrived(_ datagram: ForeignAnnouncementSockets.Arrival) {
        guard let info = try? LocalSendMessages.deviceInfo(from: datagram.bytes, limits: configuration.limits) else {
            return
        }
        let decision = LocalSendAnnouncementRule.decide(
            arrival: datagram.verdict,
            info: info,
            allowsPlainHTTP: configuration.allowsPlainHTTP
        )
        if case .drop = decision {
            state.withLockedValue { $0.droppedDatagrams += 1 }
            return
        }
        guard heard(info, from: datagram.host), decision != .record else { return }
        let waits = state.withLockedValue { state -> Bool in
            guard state.waitingAnswers < Self.maximumWaitingAnswers else { return false }
            state.waitingAnswers += 1
            return true
        }
        guard waits else { return }
        Task { await self.answer(info, at: datagram.host, as: decision) }
    }

    /// The rate rule (``LocalSendDevices/mayAnswer(_:at:)``) is asked just before the connection starts, not when
    /// the announcement arrived: tasks started under a flood may run late and together, and the rule bounds the
    /// connections, not the decisions.
    func answer(_ info: LocalSendDeviceInfo, at host: String, as decision: LocalSendAnnouncementRule.Decision) async {
        let now = self.now
        let answers = state.withLockedValue { state -> Bool in
            state.waitingAnswers -= 1
            return state.devices.mayAnswer(info.fingerprint, at: now)
        }
        guard answers else { return }
        switch decision {
        case .register(let https): await register(with: info, at: host, https: https)
        case .answerOnGroup: await answerOnGroup()
        case .drop, .record: break
        }
    }

    /// The multicast answer to an announcement (`"announce": false`), to the group.
    func answerOnGroup() async {
        guard let multicast = state.withLockedValue({ $0.multicast }) else { return }
        await multicast.send(Self.datagram(ownInfo(announce: false)))
    }

    /// Records a device; true when it is not this device. `proven`: the message came over TLS that showed the
    /// fingerprint's certificate (``LocalSendDevices/heard(_:from:at:proven:)``).
    @discardableResult
    func heard(_ info: LocalSendDeviceInfo, from host: String, proven: Bool = false) -> Bool {
        let outcome = state.withLockedValue { $0.devices.heard(info, from: host, at: now, proven: proven) }
        switch outcome {
        case .ignored: return false
        case .new(let device), .changed(let device): emit(.found(Self.peer(device)))
        case .same, .kept: break
        case .moveClaimed(_, let claimed): checkMove(to: claimed)
        }
        return true
    }

    /// An HTTPS device is said to answer at another address: it moves there only once `/info` there, over TLS
    /// pinned to its fingerprint, answers with that fingerprint. Bounded like the answers to announcements.
    func checkMove(to claimed: LocalSendDevices.Device) {
        let waits = state.withLockedValue { state -> Bool in
            guard state.waitingAnswers < Self.maximumWaitingAnswers else { return false }
            state.waitingAnswers += 1
            return true
        }
        guard waits else { return }
        Task {
            let now = self.now
            let checks = state.withLockedValue { state -> Bool in
                state.waitingAnswers -= 1
                return state.devices.mayAnswer(claimed.key, at: now)
            }
            guard checks else { return }
            let target = LocalSendHTTPClient.Target(
                host: claimed.host,
                port: claimed.port,
                https: true,
                fingerprint: claimed.key
            )
            guard
                let answer = try? await client.request(
                    .GET,
                    target,
                    path: "/api/localsend/v2/info",
                    responseLimit: configuration.limits.maximumInfoBytes
                ), answer.status == 200,
                let theirs = try? LocalSendMessages.deviceInfo(from: answer.body, limits: configuration.limits),
                LocalSendFingerprint.matches(theirs.fingerprint, claimed.key)
            else { return }
            heard(claimed.info, from: claimed.host, proven: true)
        }
    }

    /// Answers an announcement by registering with the announcer (over HTTPS pinned to the fingerprint it announced,
    /// or over plain HTTP when ``LocalSendAnnouncementRule`` allows it), or when that fails by a multicast answer.
    func register(with info: LocalSendDeviceInfo, at host: String, https: Bool) async {
        let target = LocalSendHTTPClient.Target(
            host: host,
            port: info.port ?? configuration.port,
            https: https,
            fingerprint: https ? info.fingerprint : nil
        )
        let body = (try? JSONEncoder().encode(ownInfo(announce: nil))).map { Array($0) } ?? []
        let answer = try? await client.request(
            .POST,
            target,
            path: "/api/localsend/v2/register",
            body: .bytes(body),
            contentType: "application/json",
            responseLimit: configuration.limits.maximumInfoBytes
        )
        if let answer, answer.status == 200,
            let theirs = try? LocalSendMessages.deviceInfo(from: answer.body, limits: configuration.limits)
        {
            // Over HTTPS the connection was pinned to the announced fingerprint: an answer naming another is
            // dropped, one naming it is proven. Over plain HTTP nothing is proven.
            if !https {
                heard(theirs, from: host)
            } else if LocalSendFingerprint.matches(theirs.fingerprint, info.fingerprint) {
                heard(theirs, from: host, proven: true)
            }
        } else {
            await answerOnGroup()
        }
    }

    static func peer(_ device: LocalSendDevices.Device) -> ForeignPeer {
        ForeignPeer(
            id: .init(protocol: .localSend, value: device.key),
            name: DisplayText.sanitized(device.info.alias),
            address: "\(device.host):\(device.port)",
            fingerprint: device.isHTTPS ? device.key : nil,
            deviceType: device.info.deviceType.map { DisplayText.sanitized($0) },
            deviceModel: device.info.deviceModel.map { DisplayText.sanitized($0) },
            isPlainHTTP: !device.isHTTPS
        )
    }

    /// The peer a prepare-upload comes from, with the fingerprint its TLS certificate proved: a sender that
    /// showed none, or another than it claims, has no fingerprint (nothing to pin, nothing to trust).
    func peer(for info: LocalSendDeviceInfo, host: String, proven: String?) -> ForeignPeer {
        var peer = Self.peer(.init(info: info, host: host, lastHeard: now))
        if let device = state.withLockedValue({ $0.devices.device(info.fingerprint) }), device.host == host {
            peer = Self.peer(device)
        }
        guard let proven, LocalSendFingerprint.matches(proven, info.fingerprint) else {
            peer.fingerprint = nil
            return peer
        }
        peer.fingerprint = proven.uppercased()
        return peer
    }

    /// Probes every ``LocalSendConfiguration/probedHosts`` host now and every ``LocalSendConfiguration/probeInterval``
    /// after, until cancelled: a device found so is in the table as one found by multicast is (its name, its
    /// proven fingerprint), and one gone drops out as any does. Plain HTTP is tried only where it is allowed.
    func probeHosts() async throws {
        while true {
            for host in configuration.probedHosts {
                do {
                    _ = try await probe(host: host)
                } catch {
                    if configuration.allowsPlainHTTP { _ = try? await probe(host: host, https: false) }
                }
            }
            try await Task.sleep(for: configuration.probeInterval)
        }
    }

    /// Asks the device at `host`:`port` who it is (`/info`), as when it is not found by multicast: another
    /// subnet, a network that drops multicast. Over HTTPS the fingerprint it gives must be its certificate's.
    public func probe(host: String, port: Int = 53317, https: Bool = true) async throws -> ForeignPeer {
        let target = LocalSendHTTPClient.Target(host: host, port: port, https: https, fingerprint: nil)
        let response = try await client.request(
            .GET,
            target,
            path: "/api/localsend/v2/info",
            responseLimit: configuration.limits.maximumInfoBytes
        )
        guard response.status == 200 else { throw LocalSendError.unexpectedStatus(response.status, "/info") }
        var info: LocalSendDeviceInfo
        do {
            info = try LocalSendMessages.deviceInfo(from: response.body, limits: configuration.limits)
        } catch {
            throw LocalSendError.badAnswer("\(error)")
        }
        if let presented = response.presentedFingerprint {
            guard LocalSendFingerprint.matches(info.fingerprint, presented) else {
                throw LocalSendError.fingerprintMismatch(expected: info.fingerprint, presented: presented)
            }
        }
        info.port = port
        info.protocol = https ? "https" : "http"
        heard(info, from: host, proven: https && response.presentedFingerprint != nil)
        guard let device = state.withLockedValue({ $0.devices.device(info.fingerprint) }) else {
            throw LocalSendError.badAnswer("the device gave this device's own fingerprint")
        }
        return Self.peer(device)
    }

    public func peers() async -> [ForeignPeer] {
        state.withLockedValue { $0.devices.devices.values.map(Self.peer) }.sorted { $0.name < $1.name }
    }

    public func answer(_ offer: ForeignOffer, with answer: ForeignOfferAnswer) async {
        await inbox.answer(offer.id, with: answer)
    }
}
