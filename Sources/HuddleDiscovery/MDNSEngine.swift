import HuddleDNS
import HuddleMDNSCore
import NIOCore
import NIOPosix

/// Drives the responder and querier machines from sockets and timers.
///
/// `@unchecked Sendable`: every mutable property is touched only on ``eventLoop`` (public entry points hop
/// there with `submit`/`execute`, socket callbacks and timers run there).
final class MDNSEngine: @unchecked Sendable {
    let eventLoop: any EventLoop
    let configuration: DiscoveryConfiguration
    var responder: MDNSResponder
    var querier: MDNSQuerier
    var sockets: [MDNSFamily: MDNSFamilySocket] = [:]
    var interfaces: [Int: MDNSInterface] = [:]
    var timer: Scheduled<Void>?
    var timerDeadline: NIODeadline?
    var interfaceWatch: RepeatedTask?
    var registrations: [MDNSServiceID: AsyncStream<MDNSResponderEvent>.Continuation] = [:]
    var subscribers: [Int: BrowseSubscriber] = [:]
    var nextSubscriber = 0
    var statistics = MDNSStatistics()
    var isShutDown = false
    let decoder = DNSMessageDecoder()

    struct BrowseSubscriber {
        var browseName: DNSName
        var continuation: AsyncStream<MDNSBrowseEvent>.Continuation
        var reported: Set<DNSName>
    }

    private init(configuration: DiscoveryConfiguration, eventLoop: any EventLoop, hostLabel: String) throws {
        self.eventLoop = eventLoop
        self.configuration = configuration
        var seed = SystemRandomNumberGenerator()
        self.responder = try MDNSResponder(
            hostLabel: hostLabel,
            families: configuration.families,
            configuration: configuration.responder,
            randomSeed: seed.next(),
            now: .now()
        )
        self.querier = MDNSQuerier(configuration: configuration.querier, randomSeed: seed.next())
    }

    static func start(configuration: DiscoveryConfiguration, eventLoop: any EventLoop) async throws -> MDNSEngine {
        let label = configuration.hostLabel ?? Self.defaultHostLabel()
        let engine = try MDNSEngine(configuration: configuration, eventLoop: eventLoop, hostLabel: label)
        let found = try InterfaceScanner(configuration: configuration).scan()
        guard !found.isEmpty else {
            throw MDNSError(
                .noUsableInterface,
                "no usable multicast interface (check --interface, or that an interface is up with an address)"
            )
        }
        var failures: [String] = []
        for family in MDNSFamily.allCases where configuration.families.contains(family) {
            do {
                let socket = try await engine.openSocket(family).get()
                try await eventLoop.submit { engine.adopt(socket) }.get()
            } catch {
                failures.append("\(family): \(error)")
            }
        }
        guard try await eventLoop.submit({ !engine.sockets.isEmpty }).get() else {
            throw MDNSError(.socketFailure, "could not open UDP port 5353 (\(failures.joined(separator: "; ")))")
        }
        try await eventLoop.flatSubmit { engine.apply(found) }.get()
        try await eventLoop.submit {
            let interval = TimeAmount(configuration.interfaceCheckInterval)
            engine.interfaceWatch = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
                engine.rescanInterfaces()
            }
        }.get()
        return engine
    }

    /// The machine's host name, first label only, as a DNS-safe label with `-huddle` appended.
    static func defaultHostLabel() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let name =
            gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "huddle"
        let first = name.split(separator: ".").first.map(String.init) ?? "huddle"
        let safe = String(first.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "-" }.prefix(50))
        return (safe.isEmpty ? "huddle" : safe) + "-huddle"
    }

    var activeInterfaces: [MDNSInterface] { self.interfaces.values.sorted { $0.index < $1.index } }

    // MARK: Sockets

    func openSocket(_ family: MDNSFamily) -> EventLoopFuture<MDNSFamilySocket> {
        MDNSFamilySocket.open(family: family, on: self.eventLoop) { [weak self] envelope in
            self?.received(envelope, family: family)
        }
    }

    /// Takes a newly opened socket into use, and arranges for it to be replaced if it closes under us.
    func adopt(_ socket: MDNSFamilySocket) {
        self.sockets[socket.family] = socket
        // The channel lives on this engine's event loop, so the callback runs there.
        socket.channel.closeFuture.whenComplete { [weak self] _ in self?.socketClosed(socket) }
    }

    /// A socket closed while the engine runs: NIO closes a datagram channel on some send errors, such as
    /// sending out of an interface whose link just went down. Without a replacement this family would stay
    /// deaf and mute for good (its group memberships gone with it), so a new socket is opened, after a short
    /// pause and again every two seconds until it works, and joined on every interface again.
    func socketClosed(_ socket: MDNSFamilySocket) {
        guard !self.isShutDown, self.sockets[socket.family] === socket else { return }
        self.sockets[socket.family] = nil
        self.reopenSocket(socket.family, after: .milliseconds(500))
    }

    func reopenSocket(_ family: MDNSFamily, after delay: TimeAmount) {
        self.eventLoop.scheduleTask(in: delay) { [weak self] in
            guard let self, !self.isShutDown, self.sockets[family] == nil else { return }
            self.openSocket(family).whenComplete { result in
                switch result {
                case .success(let socket):
                    guard !self.isShutDown else {
                        _ = socket.close()
                        return
                    }
                    self.adopt(socket)
                    self.statistics.socketsReopened += 1
                    if let found = try? InterfaceScanner(configuration: self.configuration).scan() {
                        _ = self.apply(found)
                    }
                case .failure:
                    self.reopenSocket(family, after: .seconds(2))
                }
            }
        }
    }

    // MARK: Interfaces

    /// Whether our sockets are alone on port 5353, so a unicast reply can only reach us (``MDNSPortSharing``);
    /// checked at every interface scan, so a stack that opens the port later turns unicast replies off.
    func checkPortSharing() {
        self.querier.unicastRepliesReachOnlyUs = MDNSPortSharing.socketsBound(to: mdnsPort) == self.sockets.count
    }

    func rescanInterfaces() {
        guard !self.isShutDown else { return }
        self.checkPortSharing()
        guard let found = try? InterfaceScanner(configuration: self.configuration).scan() else { return }
        let updated = Dictionary(found.map { ($0.interface.index, $0.interface) }, uniquingKeysWith: { a, _ in a })
        guard updated != self.interfaces else { return }
        _ = self.apply(found)
    }

    func apply(_ found: [InterfaceScanner.Found]) -> EventLoopFuture<Void> {
        self.interfaces = Dictionary(found.map { ($0.interface.index, $0.interface) }, uniquingKeysWith: { a, _ in a })
        var futures: [EventLoopFuture<Void>] = []
        if let socket = self.sockets[.v4] {
            let devices = found.compactMap { item in item.ipv4Device.map { (item.interface.index, $0) } }
            futures.append(socket.setMembership(Dictionary(devices, uniquingKeysWith: { a, _ in a })))
        }
        if let socket = self.sockets[.v6] {
            let devices = found.compactMap { item in item.ipv6Device.map { (item.interface.index, $0) } }
            futures.append(socket.setMembership(Dictionary(devices, uniquingKeysWith: { a, _ in a })))
        }
        let now = NIODeadline.now()
        let usable = self.activeInterfaces
        self.responder.setInterfaces(usable, now: now)
        let links = usable.flatMap { interface in
            self.sockets.keys.sorted { $0 == .v4 && $1 == .v6 }.compactMap { family -> MDNSLink? in
                let has = family == .v4 ? !interface.ipv4.isEmpty : !interface.ipv6.isEmpty
                return has ? MDNSLink(interfaceIndex: interface.index, family: family) : nil
            }
        }
        var own = Set<MDNSAddress>()
        for interface in usable {
            for prefix in interface.ipv4 { own.insert(.v4(prefix.address)) }
            for prefix in interface.ipv6 { own.insert(.v6(prefix.address)) }
        }
        self.querier.setLinks(links, ownAddresses: own, now: now)
        self.checkPortSharing()
        self.pump()
        return EventLoopFuture.andAllComplete(futures, on: self.eventLoop)
    }

    // MARK: Datagrams and timers

    func received(_ envelope: AddressedEnvelope<ByteBuffer>, family: MDNSFamily) {
        self.eventLoop.preconditionInEventLoop()
        guard !self.isShutDown, let info = envelope.metadata?.packetInfo, self.interfaces[info.interfaceIndex] != nil,
            let source = envelope.remoteAddress.mdnsEndpoint
        else { return }
        self.statistics.received += 1
        let message: DNSMessage
        do {
            message = try self.decoder.decode(envelope.data)
        } catch {
            self.statistics.malformed += 1
            return
        }
        let incoming = MDNSIncoming(
            message: message,
            source: source,
            link: MDNSLink(interfaceIndex: info.interfaceIndex, family: family),
            wasMulticast: info.destinationAddress.isMDNSGroup
        )
        let now = NIODeadline.now()
        self.responder.received(incoming, now: now)
        self.querier.received(incoming, now: now)
        self.pump()
    }

    /// Sends what the machines produced, hands out their events, and sets the timer for their next deadline.
    func pump() {
        let outgoing = self.responder.takeOutgoing() + self.querier.takeOutgoing()
        for datagram in outgoing {
            guard let socket = self.sockets[datagram.link.family] else { continue }
            socket.send(
                datagram.message.encoded(compressSRVTarget: datagram.compressSRVTarget),
                destination: datagram.destination,
                interfaces: self.interfaces
            )
            self.statistics.sent += 1
        }
        for event in self.responder.takeEvents() { self.dispatch(event) }
        let browseEvents = self.querier.takeEvents()
        if !browseEvents.isEmpty { self.dispatch(browseEvents) }
        self.schedule()
    }

    func schedule() {
        let deadline = [self.responder.nextDeadline, self.querier.nextDeadline].compactMap { $0 }.min()
        guard deadline != self.timerDeadline else { return }
        self.timer?.cancel()
        self.timerDeadline = deadline
        guard let deadline else {
            self.timer = nil
            return
        }
        self.timer = self.eventLoop.scheduleTask(deadline: deadline) {
            self.timerDeadline = nil
            self.timer = nil
            let now = NIODeadline.now()
            self.responder.tick(now: now)
            self.querier.tick(now: now)
            self.pump()
        }
    }
}
