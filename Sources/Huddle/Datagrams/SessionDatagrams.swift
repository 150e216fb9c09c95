import HuddleTransport
import HuddleWire
import Logging
import NIOCore
import Synchronization

/// A session's unreliable messages: its UDP socket, the datagram link of each connection (``DatagramLinks``, the
/// rules) and the events of what arrives. It runs on its session's executor, so the session sets links up and
/// takes them down synchronously, in the order its rules decide (`docs/design.md`, "Datagrams").
actor SessionDatagrams {
    /// Drops packets that name no link before any work is spent on them.
    nonisolated let filter = DatagramFilter()
    /// The socket's port, told to peers in the handshake (0 until it is bound).
    nonisolated let port = Atomic<Int>(0)
    nonisolated let flow: ReceiveFlow
    nonisolated let broadcast: EventBroadcast<PeerSessionEvent>
    nonisolated let logger: Logger
    nonisolated let authenticationFailureLimit: UInt64
    nonisolated let executorOwner: any Actor
    /// The session's clock (``PeerSessionConfiguration/clock``): the real-time rules, the PINGs and their
    /// timeouts reckon in it, so tests move it by hand.
    nonisolated let clock: any SessionClock
    let startInstant: ContinuousClock.Instant
    var channel: (any Channel)?
    /// Each connection's datagram keys and the routes of received packets to them.
    var links = DatagramLinks()
    /// The peer on each connection with a link.
    var peers: [ConnectionID: PeerID] = [:]
    /// Who waits for the PONG of which PING (``ping(_:on:size:timeout:)``).
    var pingWaiters: [PingKey: CheckedContinuation<Duration?, Never>] = [:]
    /// Sends a PING on every link of version 3 now and then, for its statistics.
    var pinger: Task<Void, Never>?
    nonisolated let linkPingInterval: Duration?

    /// Runs on `executorOwner`'s executor.
    init(
        configuration: PeerSessionConfiguration,
        flow: ReceiveFlow,
        broadcast: EventBroadcast<PeerSessionEvent>,
        sharingExecutorOf executorOwner: any Actor
    ) {
        self.flow = flow
        self.broadcast = broadcast
        self.logger = configuration.logger
        self.authenticationFailureLimit = configuration.datagramAuthenticationFailureLimit
        self.linkPingInterval = configuration.linkPingInterval
        self.clock = configuration.clock
        self.startInstant = configuration.clock.now
        self.executorOwner = executorOwner
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executorOwner.unownedExecutor }

    /// Time on a monotonic clock since the session started, as the datagram layer measures it.
    var now: Duration { startInstant.duration(to: clock.now) }

    /// Binds the socket through `transport` on `port`, the number of the session's TCP port (`docs/wire-protocol.md`
    /// §8, "The datagram port"), or on any free port when that one is taken for UDP; what arrives goes to
    /// `received` (through the session's inbox, in order).
    func open(
        host: String?,
        port: Int,
        group: any EventLoopGroup,
        transport: any SessionTransport,
        received: @escaping @Sendable ([UInt8], SocketAddress) -> Void
    ) async throws {
        func bind(_ port: Int) async throws -> any Channel {
            try await transport.bindDatagrams(host: host, port: port, group: group, filter: filter, deliver: received)
        }
        let channel: any Channel
        do {
            channel = try await bind(port)
        } catch  where port != 0 {
            channel = try await bind(0)
        }
        self.channel = channel
        self.port.store(channel.localAddress?.port ?? 0, ordering: .relaxed)
        startPinging()
    }

    func close() async {
        pinger?.cancel()
        pinger = nil
        for waiter in pingWaiters.values { waiter.resume(returning: nil) }
        pingWaiters = [:]
        try? await channel?.close()
        channel = nil
    }

    /// Sets up the datagram keys of connection `id` to `peer`, which just completed its handshake; `tcpRemote` is
    /// the connection's address, whose host the peer's datagrams come from.
    func start(
        on id: ConnectionID,
        peer: PeerID,
        role: PeerRole,
        ownFingerprint: [UInt8],
        remoteFingerprint: [UInt8],
        tcpRemote: SocketAddress?,
        outcome: PeerHandshake.Outcome
    ) {
        guard outcome.peerHello.datagramPort != 0, let tcpRemote,
            var remote = try? SocketAddress(
                ipAddress: tcpRemote.ipAddress ?? "",
                port: Int(outcome.peerHello.datagramPort)
            )
        else { return }
        remote = address(remote)
        let initiatorFP = role == .initiator ? ownFingerprint : remoteFingerprint
        let responderFP = role == .initiator ? remoteFingerprint : ownFingerprint
        guard
            let schedule = try? DatagramKeySchedule(
                transcriptHash: outcome.transcript,
                initiatorSecret: outcome.initiatorKeyShare,
                responderSecret: outcome.responderKeyShare,
                initiatorFingerprint: initiatorFP,
                responderFingerprint: responderFP
            )
        else { return }
        let keys = schedule.keys(for: role == .initiator ? .initiator : .responder)
        let link = DatagramLink(
            sealer: DatagramSealer(keys: keys, now: now),
            opener: DatagramOpener(keys: keys, authenticationFailureLimit: authenticationFailureLimit),
            remote: remote,
            realtime: outcome.version >= 3 ? RealtimeLink() : nil
        )
        links.add(link, on: id)
        peers[id] = peer
        // Packets the peer sent before this side had the link: opened now, in the order they came.
        for early in filter.allow(keys.localConnectionID) {
            received(early.bytes, from: early.source)
        }
    }

    /// Connection `id` ended: its link and its route go.
    func forget(_ id: ConnectionID) {
        peers[id] = nil
        for key in pingWaiters.keys where key.connection == id {
            pingWaiters.removeValue(forKey: key)?.resume(returning: nil)
        }
        guard let cid = links.remove(on: id) else { return }
        filter.forget(cid)
    }

    /// An IPv4 address as the socket needs it: mapped into IPv6 when the socket is IPv6.
    func address(_ address: SocketAddress) -> SocketAddress {
        guard case .v6 = channel?.localAddress, case .v4 = address, let ip = address.ipAddress,
            let port = address.port, let mapped = try? SocketAddress(ipAddress: "::ffff:" + ip, port: port)
        else { return address }
        return mapped
    }

    func received(_ bytes: [UInt8], from source: SocketAddress, at arrival: ContinuousClock.Instant? = nil) {
        let now = startInstant.duration(to: arrival ?? clock.now)
        let opened = links.open(bytes, from: source, now: now, address: address)
        let id: ConnectionID
        switch opened {
        case .unrouted: return
        case .dropped(let connection): id = connection
        case .delivered(_, let connection): id = connection
        }
        guard let peer = peers[id] else { return }
        if case .delivered(let payload, _) = opened {
            switch links.withRealtime(on: id, { $0.received(payload, now: now) }) {
            case nil: deliver(payload, from: peer, PeerDelivery(.unreliable))
            case .deliver(let bytes, let channel, let sequenced)?:
                deliver(
                    bytes,
                    from: peer,
                    PeerDelivery(sequenced ? .unreliableSequenced : .unreliable, channel: channel)
                )
            case .answer(let pong)?: try? write([(peer, id, [pong])])
            case .answered(let ping, let roundTrip)?:
                pingWaiters.removeValue(forKey: PingKey(connection: id, ping: ping))?.resume(returning: roundTrip)
            case .none?: break
            }
        }
        // Anyone on the path can send packets with this link's connection ID: the forgeries end the link's
        // receiving (this packet was the last it routes), never the TLS session and what runs on it
        // (`docs/threat-model.md`, "Datagrams").
        guard let forgeries = links.stoppedReceiving(on: id), let cid = DatagramConnectionID(destinationOf: bytes)
        else { return }
        filter.forget(cid)
        broadcast.yield(.peerError(peer, .datagramsStopped(peer, forgeries: forgeries)))
    }

    func deliver(_ bytes: [UInt8], from peer: PeerID, _ delivery: PeerDelivery) {
        if let charge = flow.admitDatagram(bytes.count) {
            broadcast.yield(.received(bytes, from: peer, delivery), holding: charge)
        } else {
            // Counted in droppedDatagramsOverBudget; debug only, as a flood would flood the log too.
            logger.debug("dropped a datagram: the receive budget is full", metadata: ["peer": "\(peer)"])
        }
    }

    /// Sends one unreliable message to each connection: as the payloads of ``RealtimeLink`` from version 3 on,
    /// as the bytes themselves to a peer of version 2 (channel 0, unsequenced, one datagram only). Nothing goes
    /// unless every connection can take it.
    /// - Throws: ``PeerSessionError/notConnected(_:)`` naming the peer without a link,
    ///   ``PeerSessionError/needsNewerPeer(_:version:)``, wire errors (too large, sealing), `.stopped`.
    func send(
        _ bytes: [UInt8],
        _ delivery: PeerDelivery,
        on connections: [(peer: PeerID, connection: ConnectionID)]
    ) throws {
        var batches: [(PeerID, ConnectionID, [[UInt8]])] = []
        var streamed: [(PeerID, ConnectionID, any Channel)] = []
        for (peer, id) in connections {
            guard links.hasLink(on: id) else { throw PeerSessionError.notConnected(peer) }
            if links.realtime(on: id)?.path.path(now: now) == .tls {
                streamed.append((peer, id, try streamChannel(for: peer, size: bytes.count)))
                continue
            }
            let sequenced = delivery.mode == .unreliableSequenced
            let payloads: [[UInt8]]
            do {
                payloads =
                    try links.withRealtime(on: id) {
                        try $0.payloads(of: bytes, channel: delivery.channel, sequenced: sequenced)
                    } ?? [bytes]
            } catch let error as PeerWireError {
                throw PeerSessionError.connection(.wire(error))
            } catch {
                throw PeerSessionError.notConnected(peer)
            }
            if links.realtime(on: id) == nil {
                guard delivery == PeerDelivery(.unreliable) else {
                    throw PeerSessionError.needsNewerPeer(peer, version: 2)
                }
                guard bytes.count <= DatagramSealer.defaultMaximumPayloadByteCount else {
                    let limit = DatagramSealer.defaultMaximumPayloadByteCount
                    throw PeerSessionError.connection(.wire(.datagramTooLarge(limit: limit, size: bytes.count)))
                }
            }
            batches.append((peer, id, payloads))
        }
        try write(batches)
        for (_, id, channel) in streamed where channel.isWritable {
            // A full stream drops the message rather than queue it: a game's next update is on its way.
            let kind: ReliableMessageHeader.Kind =
                delivery.mode == .unreliableSequenced ? .unreliableSequenced : .unreliable
            var buffer = channel.allocator.buffer(capacity: bytes.count + ReliableMessageHeader.byteCount)
            buffer.writeBytes(ReliableMessageHeader(kind, channel: delivery.channel).encoded)
            buffer.writeBytes(bytes)
            channel.writeAndFlush(PeerOutbound.message(buffer), promise: nil)
            links.withRealtime(on: id) { $0.sentOnStream() }
        }
    }

    /// The TLS channel an unreliable message of `size` bytes to `peer` goes on while UDP does not get through.
    private func streamChannel(for peer: PeerID, size: Int) throws -> any Channel {
        guard size <= RealtimeLink.maximumMessageBytes else {
            let limit = RealtimeLink.maximumMessageBytes
            throw PeerSessionError.connection(.wire(.datagramTooLarge(limit: limit, size: size)))
        }
        guard let (channel, _) = flow.link(to: peer) else { throw PeerSessionError.notConnected(peer) }
        return channel
    }

    /// Seals each connection's payloads and sends the packets; nothing goes unless every one sealed.
    func write(_ batches: [(PeerID, ConnectionID, [[UInt8]])]) throws {
        var packets: [(SocketAddress, [UInt8])] = []
        for (peer, id, payloads) in batches {
            do {
                for payload in payloads {
                    guard let packet = try links.seal(payload, for: id, now: now) else {
                        throw PeerSessionError.notConnected(peer)
                    }
                    packets.append(packet)
                }
                links.withRealtime(on: id) { $0.sent(payloads.count, bytes: payloads.reduce(0) { $0 + $1.count }) }
            } catch let error as PeerWireError {
                throw PeerSessionError.connection(.wire(error))
            } catch let error as PeerSessionError {
                throw error
            } catch {
                throw PeerSessionError.notConnected(peer)
            }
        }
        guard let channel else { throw PeerSessionError.stopped }
        for (remote, packet) in packets {
            let envelope = AddressedEnvelope(remoteAddress: remote, data: channel.allocator.buffer(bytes: packet))
            channel.write(envelope, promise: nil)
        }
        channel.flush()
    }
}
