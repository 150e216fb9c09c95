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
    let startInstant = ContinuousClock.now
    var channel: (any Channel)?
    /// Each connection's datagram keys and the routes of received packets to them.
    var links = DatagramLinks()
    /// The peer on each connection with a link.
    var peers: [ConnectionID: PeerID] = [:]

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
        self.executorOwner = executorOwner
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executorOwner.unownedExecutor }

    /// Time on a monotonic clock since the session started, as the datagram layer measures it.
    var now: Duration { startInstant.duration(to: .now) }

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
    }

    func close() async {
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
            remote: remote
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

    func received(_ bytes: [UInt8], from source: SocketAddress) {
        let opened = links.open(bytes, from: source, now: now, address: address)
        let id: ConnectionID
        switch opened {
        case .unrouted: return
        case .dropped(let connection): id = connection
        case .delivered(_, let connection): id = connection
        }
        guard let peer = peers[id] else { return }
        if case .delivered(let payload, _) = opened {
            if let charge = flow.admitDatagram(payload.count) {
                broadcast.yield(.received(payload, from: peer), holding: charge)
            } else {
                // Counted in droppedDatagramsOverBudget; debug only, as a flood would flood the log too.
                logger.debug("dropped a datagram: the receive budget is full", metadata: ["peer": "\(peer)"])
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

    /// Seals `bytes` for each connection and sends the packets; nothing goes unless every connection has a link.
    /// - Throws: ``PeerSessionError/notConnected(_:)`` naming the peer without a link, wire errors of sealing,
    ///   `.stopped` without a socket.
    func send(_ bytes: [UInt8], on connections: [(peer: PeerID, connection: ConnectionID)]) throws {
        var packets: [(SocketAddress, [UInt8])] = []
        for (peer, id) in connections {
            do {
                guard let packet = try links.seal(bytes, for: id, now: now) else {
                    throw PeerSessionError.notConnected(peer)
                }
                packets.append(packet)
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
