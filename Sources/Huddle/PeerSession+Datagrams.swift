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
        return io[id]?.datagram?.opener.counters
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
        io[id]?.datagram = DatagramLink(
            sealer: DatagramSealer(keys: keys, now: datagramNow),
            opener: DatagramOpener(
                keys: keys,
                authenticationFailureLimit: configuration.datagramAuthenticationFailureLimit
            ),
            remote: remote
        )
        datagramRoutes[keys.localConnectionID] = id
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
        guard let cid = DatagramConnectionID(destinationOf: bytes), let id = datagramRoutes[cid],
            var link = io[id]?.datagram, let peer = machine.peer(on: id)
        else { return }
        let result = link.opener.open(bytes, now: datagramNow)
        if case .delivered(let payload) = result {
            link.remote = datagramAddress(source)
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
        io[id]?.datagram = link
        if link.opener.isCloseRecommended {
            // Anyone on the path can send packets with this link's connection ID: the forgeries end the link's
            // receiving, never the TLS session and what runs on it (`docs/threat-model.md`, "Datagrams").
            datagramRoutes[cid] = nil
            datagramFilter.forget(cid)
            emit(.peerError(peer, .datagramsStopped(peer, forgeries: link.opener.counters.authFailures)))
        }
    }

    /// The connection ID this side receives `peer`'s datagrams under, while it does.
    func receivingDatagramConnectionID(from peer: PeerID) -> DatagramConnectionID? {
        guard let id = machine.connection(of: peer), let cid = io[id]?.datagram?.opener.connectionID,
            datagramRoutes[cid] == id
        else { return nil }
        return cid
    }

    func sendDatagram(_ bytes: [UInt8], to peers: [PeerID]) throws {
        guard bytes.count <= maximumDatagramPayload else {
            throw PeerSessionError.connection(
                .wire(.datagramTooLarge(limit: maximumDatagramPayload, size: bytes.count))
            )
        }
        var packets: [(SocketAddress, [UInt8])] = []
        for peer in peers {
            guard let id = machine.connection(of: peer), var link = io[id]?.datagram else {
                throw PeerSessionError.notConnected(peer)
            }
            // Rekey at 2^32 packets or 120 s (`docs/security.md` §3.7); the peer's opener moves to the next epoch
            // when the first packet sealed under it authenticates, and keeps the old one for its grace period.
            if link.sealer.isRekeyDue(now: datagramNow) { link.sealer.rekey(now: datagramNow) }
            do {
                packets.append((link.remote, try link.sealer.seal(bytes)))
            } catch let error as PeerWireError {
                throw PeerSessionError.connection(.wire(error))
            } catch {
                throw PeerSessionError.notConnected(peer)
            }
            io[id]?.datagram = link
        }
        guard let channel = datagramChannel else { throw PeerSessionError.stopped }
        for (remote, packet) in packets {
            let envelope = AddressedEnvelope(remoteAddress: remote, data: channel.allocator.buffer(bytes: packet))
            channel.write(envelope, promise: nil)
        }
        channel.flush()
    }
}
