import HuddleTransport
public import HuddleWire
import NIOCore
import Synchronization

extension PeerSession {
    /// The largest unreliable message that goes as one datagram, on a link of protocol version 2 the largest of
    /// all.
    public nonisolated var maximumDatagramPayload: Int { DatagramSealer.defaultMaximumPayloadByteCount }

    /// The largest unreliable message from protocol version 3 on: 64 KiB, sent as fragments.
    public nonisolated var maximumUnreliableMessage: Int { RealtimeLink.maximumMessageBytes }

    /// The TCP port the session listens on; nil before it starts and in client mode.
    public var listeningPort: Int? { listener?.localAddress?.port }

    /// The UDP port of the session's unreliable messages: the number of ``listeningPort`` (or of the configured
    /// ``PeerSessionConfiguration/listenPort`` in client mode), unless that number was taken for UDP when the
    /// session started (`docs/wire-protocol.md` §8, "The datagram port"); nil before the session starts.
    public nonisolated var datagramPort: Int? {
        let port = datagrams.port.load(ordering: .relaxed)
        return port == 0 ? nil : port
    }

    /// What the datagram layer of the connection to `peer` counted (delivered, replays, forgeries, …).
    public func datagramCounters(for peer: PeerID) -> DatagramCounters? {
        guard let id = machine.connection(of: peer) else { return nil }
        return datagrams.assumeIsolated { $0.links.counters(on: id) }
    }

    /// How many received datagrams were dropped before opening because they named no link of this session (too
    /// short to name one, or a connection ID nobody was given): garbage, or packets of a link already closed.
    public nonisolated var droppedUnroutedDatagrams: UInt64 { datagrams.filter.dropped }

    /// How many opened datagrams were dropped because the slowest subscriber of ``events`` had fallen
    /// ``PeerSessionConfiguration/maximumUndeliveredBytes`` behind.
    public nonisolated var droppedDatagramsOverBudget: UInt64 { flow.datagramsOverBudget }

    /// Sets up the datagram link of connection `id`, which just completed its handshake with `peer`.
    func startDatagrams(
        on id: ConnectionID,
        peer: PeerID,
        device: DeviceID,
        role: PeerRole,
        outcome: PeerHandshake.Outcome
    ) {
        io[id]?.version = outcome.version
        let (own, remote) = (identity.fingerprint, io[id]?.remote)
        datagrams.assumeIsolated {
            $0.start(
                on: id,
                peer: peer,
                role: role,
                ownFingerprint: own,
                remoteFingerprint: device.bytes,
                tcpRemote: remote,
                outcome: outcome
            )
        }
    }

    /// The connection ID this side receives `peer`'s datagrams under, while it does.
    func receivingDatagramConnectionID(from peer: PeerID) -> DatagramConnectionID? {
        guard let id = machine.connection(of: peer) else { return nil }
        return datagrams.assumeIsolated { $0.links.receivingConnectionID(on: id) }
    }

    func sendDatagram(_ bytes: [UInt8], _ delivery: PeerDelivery, to peers: [PeerID]) throws {
        let connections = try peers.map { peer in
            guard let id = machine.connection(of: peer) else { throw PeerSessionError.notConnected(peer) }
            return (peer: peer, connection: id)
        }
        try datagrams.assumeIsolated { try $0.send(bytes, delivery, on: connections) }
    }
}
