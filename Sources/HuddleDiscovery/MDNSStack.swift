public import HuddleDNS
public import HuddleMDNSCore
public import NIOCore
import NIOPosix

/// A complete mDNS responder and DNS-SD browser on the host's interfaces, needing no daemon
/// (RFC 6762, RFC 6763).
///
/// It shares port 5353 with any other stack on the host (Avahi, mDNSResponder). All protocol decisions are
/// made by ``MDNSResponder`` and ``MDNSQuerier``; this type only moves datagrams and timers between them and
/// the sockets.
///
/// ```swift
/// let stack = try await MDNSStack.start()
/// let service = try MDNSServiceRegistration(instanceName: "Kitchen", type: .init(parsing: "_lab._tcp", strict: true), port: 8080)
/// let registration = try await stack.register(service)
/// for await event in stack.browse(service.type) { print(event) }
/// await stack.shutdown()
/// ```
public final class MDNSStack: Sendable {
    let engine: MDNSEngine

    private init(engine: MDNSEngine) { self.engine = engine }

    /// Opens the sockets, joins the group on every usable interface and starts serving.
    ///
    /// - Throws: ``MDNSError`` with `.socketFailure` when no socket could be bound, or `.noUsableInterface`
    ///   when no interface passes the configuration's filters.
    public static func start(
        configuration: DiscoveryConfiguration = DiscoveryConfiguration(),
        eventLoop: (any EventLoop)? = nil
    ) async throws -> MDNSStack {
        let loop = eventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
        let engine = try await MDNSEngine.start(configuration: configuration, eventLoop: loop)
        return MDNSStack(engine: engine)
    }

    /// Registers a service; it is probed for and announced, renamed on conflict.
    ///
    /// - Throws: ``MDNSError`` with code `.shutDown` after ``shutdown()``.
    public func register(_ registration: MDNSServiceRegistration) async throws -> MDNSRegistration {
        let (stream, continuation) = AsyncStream<MDNSResponderEvent>.makeStream(bufferingPolicy: .unbounded)
        let id = try? await self.engine.eventLoop.submit {
            self.engine.register(registration, continuation: continuation)
        }.get()
        guard let id = id.flatMap({ $0 }) else {
            throw MDNSError(.shutDown, "the mDNS stack was shut down; start a new one to register services")
        }
        return MDNSRegistration(id: id, events: stream)
    }

    /// Changes a registered service's TXT data or port; it is announced again (RFC 6762 §8.4).
    public func update(_ id: MDNSServiceID, txt: MDNSTXTRecord? = nil, port: UInt16? = nil) async {
        try? await self.engine.eventLoop.submit { self.engine.update(id, txt: txt, port: port) }.get()
    }

    /// Withdraws a service with goodbyes (RFC 6762 §10.1).
    public func unregister(_ id: MDNSServiceID) async {
        try? await self.engine.eventLoop.submit { self.engine.unregister(id) }.get()
    }

    /// Browses for a type (or subtype) and resolves what it finds. Instances already known are reported as
    /// added first. Browsing stops when the sequence's consumer stops iterating.
    public func browse(_ type: MDNSServiceType) -> AsyncStream<MDNSBrowseEvent> {
        self.engine.subscribe(browseName: type.browseName)
    }

    /// Enumerates the service types on the network (RFC 6763 §9).
    public func browseServiceTypes() -> AsyncStream<MDNSBrowseEvent> {
        self.engine.subscribe(browseName: dnssdServicesName)
    }

    /// The interfaces in use.
    public var interfaces: [MDNSInterface] {
        get async { (try? await self.engine.eventLoop.submit { self.engine.activeInterfaces }.get()) ?? [] }
    }

    /// The host name announced, after any renames.
    public var hostName: DNSName {
        get async { (try? await self.engine.eventLoop.submit { self.engine.responder.hostName }.get()) ?? .root }
    }

    /// Counters for diagnostics: datagrams received, sent, and dropped as malformed.
    public var statistics: MDNSStatistics {
        get async { (try? await self.engine.eventLoop.submit { self.engine.statistics }.get()) ?? MDNSStatistics() }
    }

    /// Sends goodbyes for every registered service, waits until they are out, and closes the sockets.
    public func shutdown() async { await self.engine.shutdown() }
}

/// A registered service: its ID and what happens to its name.
public struct MDNSRegistration: Sendable {
    public let id: MDNSServiceID
    /// `.registered` when the name is ours, `.renamed` on conflicts, `.hostRenamed` when the host name moved.
    public let events: AsyncStream<MDNSResponderEvent>
}

/// Counters of an ``MDNSStack``.
public struct MDNSStatistics: Sendable, Hashable {
    public var received = 0
    public var sent = 0
    public var malformed = 0
    /// Sockets opened again after the system closed them (a send out of an interface whose link went down).
    public var socketsReopened = 0
    public init() {}
}
