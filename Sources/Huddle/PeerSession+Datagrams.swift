import HuddleTransport
public import HuddleWire
import Logging
import NIOCore

extension PeerSession {
    /// The largest payload of an unreliable message.
    public nonisolated var maximumDatagramPayload: Int { DatagramSealer.defaultMaximumPayloadByteCount }

    /// What the datagram layer of the connection to `peer` counted (delivered, replays, forgeries, …).
    public func datagramCounters(for peer: PeerID) -> DatagramCounters? {
        guard let id = machine.connection(of: peer) else { return nil }
        return datagrams.counters(on: id)
    }

    /// How many received datagrams were dropped before opening because they named no link of this session (too
    /// short to name one, or a connection ID nobody was given): garbage, or packets of a link already closed.
    public nonisolated var droppedUnroutedDatagrams: UInt64 { datagramFilter.dropped }

    /// How many opened datagrams were dropped because the slowest subscriber of ``events`` had fallen
    /// ``PeerSessionConfiguration/maximumUndeliveredBytes`` behind.
    public nonisolated var droppedDatagramsOverBudget: UInt64 { flow.datagramsOverBudget }

    /// Time on a monotonic clock since the session started, as the datagram layer measures it.
    var datagramNow: Duration { startInstant.duration(to: .now) }

    func openDatagramSocket(host: String?) async throws -> any Channel {
        let inbox = self.inbox
        return try await PeerDatagramChannel.bind(host: host, group: group, filter: datagramFilter) { bytes, source in
            inbox.yield(.datagram(bytes, source))
        }
    }

    /// Sets up the datagram keys of a connection that just completed its handshake.
    func startDatagrams(on id: Int, outcome: PeerHandshake.Outcome) {
        guard let slot = machine.connections[id], let device = slot.remote, outcome.peerHello.datagramPort != 0,
            let tcpRemote = io[id]?.channel?.remoteAddress,
            var remote = try? SocketAddress(
                ipAddress: tcpRemote.ipAddress ?? "",
                port: Int(outcome.peerHello.datagramPort)
            )
        else { return }
        remote = datagramAddress(remote)
        let initiatorFP = slot.role == .initiator ? identity.fingerprint : device.bytes
        let responderFP = slot.role == .initiator ? device.bytes : identity.fingerprint
        guard
            let schedule = try? DatagramKeySchedule(
                transcriptHash: outcome.transcript,
                initiatorSecret: outcome.initiatorKeyShare,
                responderSecret: outcome.responderKeyShare,
                initiatorFingerprint: initiatorFP,
                responderFingerprint: responderFP
            )
        else { return }
        let keys = schedule.keys(for: slot.role == .initiator ? .initiator : .responder)
        let link = DatagramLink(
            sealer: DatagramSealer(keys: keys, now: datagramNow),
            opener: DatagramOpener(
                keys: keys,
                authenticationFailureLimit: configuration.datagramAuthenticationFailureLimit
            ),
            remote: remote
        )
        datagrams.add(link, on: id)
        // Packets the peer sent before this side had the link: opened now, in the order they came.
        for early in datagramFilter.allow(keys.localConnectionID) {
            receivedDatagram(early.bytes, from: early.source)
        }
    }

    /// An IPv4 address as the datagram socket needs it: mapped into IPv6 when the socket is IPv6.
    func datagramAddress(_ address: SocketAddress) -> SocketAddress {
        guard case .v6 = datagramChannel?.localAddress, case .v4 = address, let ip = address.ipAddress,
            let port = address.port, let mapped = try? SocketAddress(ipAddress: "::ffff:" + ip, port: port)
        else { return address }
        return mapped
    }

    func receivedDatagram(_ bytes: [UInt8], from source: SocketAddress) {
        let opened = datagrams.open(bytes, from: source, now: datagramNow, address: datagramAddress)
        let id: Int
        switch opened {
        case .unrouted: return
        case .dropped(let connection): id = connection
        case .delivered(_, let connection): id = connection
        }
        guard let peer = machine.peer(on: id) else { return }
        if case .delivered(let payload, _) = opened {
            if flow.admitDatagram(payload.count) {
                emit(.received(payload, from: peer))
            } else {
                // Counted in droppedDatagramsOverBudget; debug only, as a flood would flood the log too.
                configuration.logger.debug(
                    "dropped a datagram: the receive budget is full",
                    metadata: ["peer": "\(peer)"]
                )
            }
        }
        // Anyone on the path can send packets with this link's connection ID: the forgeries end the link's
        // receiving (this packet was the last it routes), never the TLS session and what runs on it
        // (`docs/threat-model.md`, "Datagrams").
        guard let forgeries = datagrams.stoppedReceiving(on: id), let cid = DatagramConnectionID(destinationOf: bytes)
        else { return }
        datagramFilter.forget(cid)
        emit(.peerError(peer, .datagramsStopped(peer, forgeries: forgeries)))
    }

    /// The connection ID this side receives `peer`'s datagrams under, while it does.
    func receivingDatagramConnectionID(from peer: PeerID) -> DatagramConnectionID? {
        machine.connection(of: peer).flatMap { datagrams.receivingConnectionID(on: $0) }
    }

    func sendDatagram(_ bytes: [UInt8], to peers: [PeerID]) throws {
        guard bytes.count <= maximumDatagramPayload else {
            throw PeerSessionError.connection(
                .wire(.datagramTooLarge(limit: maximumDatagramPayload, size: bytes.count))
            )
        }
        var packets: [(SocketAddress, [UInt8])] = []
        for peer in peers {
            guard let id = machine.connection(of: peer) else { throw PeerSessionError.notConnected(peer) }
            do {
                guard let packet = try datagrams.seal(bytes, for: id, now: datagramNow) else {
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
        guard let channel = datagramChannel else { throw PeerSessionError.stopped }
        for (remote, packet) in packets {
            let envelope = AddressedEnvelope(remoteAddress: remote, data: channel.allocator.buffer(bytes: packet))
            channel.write(envelope, promise: nil)
        }
        channel.flush()
    }
}
