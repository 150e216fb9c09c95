import HuddleTransport
import HuddleWire
import NIOCore
import Synchronization

/// How a session's connections are set up, dialled or accepted: the hello this side sends, the trust lookups and
/// the pairing budget the handshake asks, and where each connection's events go (the session's inbox, or straight
/// to ``PeerSession/events`` for messages the route lets through). Safe from any thread: the listener calls it on
/// an event loop for each accepted socket.
final class ConnectionWiring: Sendable {
    let hello: PeerHello
    let fingerprint: [UInt8]
    let ownID: DeviceID
    let trustStore: TrustStore
    let configuration: PeerSessionConfiguration
    let flow: ReceiveFlow
    let pairingGate: PairingGate
    /// The pairing links this session issued, asked by the responder's handshake.
    let pairingLinks: PairingLinks
    let inbox: AsyncStream<PeerSession.Inbox>.Continuation
    let broadcast: EventBroadcast<PeerSessionEvent>
    let datagramPort: @Sendable () -> Int
    /// PINGs over the TLS stream, answered here.
    let pings: ReliablePings
    private let connectionIDs = Atomic<Int>(0)

    init(
        hello: PeerHello,
        identity: DeviceIdentity,
        trustStore: TrustStore,
        configuration: PeerSessionConfiguration,
        flow: ReceiveFlow,
        pairingGate: PairingGate,
        pairingLinks: PairingLinks,
        inbox: AsyncStream<PeerSession.Inbox>.Continuation,
        broadcast: EventBroadcast<PeerSessionEvent>,
        datagramPort: @escaping @Sendable () -> Int
    ) {
        self.hello = hello
        self.fingerprint = identity.fingerprint
        self.ownID = identity.deviceID
        self.trustStore = trustStore
        self.configuration = configuration
        self.flow = flow
        self.pairingGate = pairingGate
        self.pairingLinks = pairingLinks
        self.inbox = inbox
        self.broadcast = broadcast
        self.datagramPort = datagramPort
        pings = ReliablePings(
            clock: configuration.clock,
            sender: MessageSender(
                flow: flow,
                inbox: inbox,
                maximumMessageSize: configuration.connection.maximumMessageSize
            )
        )
    }

    /// A number for a new connection, unique in the session.
    func nextConnectionID() -> ConnectionID {
        ConnectionID(rawValue: connectionIDs.add(1, ordering: .relaxed).newValue)
    }

    /// Listens on ``PeerSessionConfiguration/listenHost`` (or on every address, IPv6 and IPv4 if it can, else
    /// IPv4); each accepted connection is reported to the inbox and wired as a responder.
    func listen(group: any EventLoopGroup, tls: PeerTLS, admission: PeerAdmission) async throws -> any Channel {
        let wire: @Sendable (any Channel) -> PeerChannels.Wiring = { [inbox] channel in
            let id = self.nextConnectionID()
            let route = MessageRoute()
            inbox.yield(.accepted(id, channel, remote: channel.remoteAddress, route))
            return self.setup(role: .responder, connection: id, route: route, context: [], expected: nil)
        }
        func listen(on host: String, port: Int) async throws -> any Channel {
            try await configuration.transport.listen(
                host: host,
                port: port,
                group: group,
                tls: tls,
                admission: admission,
                wire: wire
            )
        }
        func listen(port: Int) async throws -> any Channel {
            if let host = configuration.listenHost { return try await listen(on: host, port: port) }
            do {
                return try await listen(on: "::", port: port)
            } catch {
                return try await listen(on: "0.0.0.0", port: port)
            }
        }
        do {
            return try await listen(port: configuration.listenPort)
        } catch  where configuration.listenPortFallsBack && configuration.listenPort != 0 {
            return try await listen(port: 0)
        }
    }

    /// What a new connection is set up with.
    func setup(
        role: PeerRole,
        connection: ConnectionID,
        route: MessageRoute,
        context: [UInt8],
        expected: DeviceID?,
        purpose: PeerHandshake.Purpose = .connect
    ) -> PeerChannels.Wiring {
        var setup = handlerSetup(role: role, context: context)
        setup.purpose = purpose
        let verifier = PeerVerifier(expected: expected, isBlocked: { [trustStore] in trustStore.isBlocked($0) })
        let (inbox, events, flow, pings) = (self.inbox, self.broadcast, self.flow, self.pings)
        return (
            setup, verifier,
            { event in
                switch event {
                case .resumed(let sequence):
                    route.resume(at: sequence)
                case .message(var buffer):
                    // The gate counted the message in; from here its charge goes with it (``ReceiveFlow``).
                    let charge = flow.charge(message: buffer.readableBytes)
                    let arrival = route.arrived()
                    let header = route.header(reading: &buffer)
                    switch arrival {
                    case .direct(let peer):
                        // A malformed header, a PING (answered) or a PONG: dropped, with its charge.
                        guard let header, let delivery = pings.take(header, buffer, from: peer) else { break }
                        events.yield(.received(Array(buffer.readableBytesView), from: peer, delivery), holding: charge)
                    case .duplicate: break  // dropped, and with it its charge
                    case .inbox(let sequence):
                        inbox.yield(.message(connection, buffer, header, sequence: sequence, charge))
                    }
                case .connected(let outcome):
                    route.speaks(outcome.version)
                    inbox.yield(.connection(connection, event))
                case .resource(let buffer):
                    inbox.yield(.resource(connection, buffer, flow.charge(resource: buffer.readableBytes)))
                default:
                    inbox.yield(.connection(connection, event))
                }
            }
        )
    }

    /// What an introduction (``PeerIntroducer``) is set up with: this side's HELLO and trust, no context, the
    /// `expected` device only when one is (a remembered, wide-area or link address: TLS then ends before this side
    /// shows its certificate or HELLO to anyone else, `docs/threat-model.md`, "Direct addresses"), else any device
    /// that is not blocked; its events go to `sink`, never to the session.
    func introductionSetup(
        expecting expected: DeviceID?,
        sink: @escaping @Sendable (PeerConnectionEvent) -> Void
    ) -> PeerChannels.Wiring {
        var setup = handlerSetup(role: .initiator, context: [])
        setup.purpose = .introduction
        setup.receiveGate = nil
        setup.pairingGate = nil
        return (setup, PeerVerifier(expected: expected, isBlocked: { [trustStore] in trustStore.isBlocked($0) }), sink)
    }

    /// This side's part of a connection's handler: its HELLO (with the datagram port of now), key, limits, gates
    /// and what it knows of each device's key.
    private func handlerSetup(role: PeerRole, context: [UInt8]) -> PeerConnectionHandler.Setup {
        let (store, ownID) = (trustStore, ownID)
        var hello = self.hello
        hello.datagramPort = UInt16(datagramPort())
        var setup = PeerConnectionHandler.Setup(
            role: role,
            hello: hello,
            fingerprint: fingerprint,
            context: context,
            configuration: configuration.connection,
            receiveGate: flow,
            pairingGate: pairingGate,
            trust: { id in
                if id == ownID { return .pinned(maximumVersionSeen: 1) }
                guard let record = store.record(for: id), record.trust != .blocked else { return .unknown }
                return .pinned(maximumVersionSeen: record.maximumVersionSeen)
            }
        )
        if role == .responder { setup.pairingLinks = pairingLinks }
        return setup
    }
}
