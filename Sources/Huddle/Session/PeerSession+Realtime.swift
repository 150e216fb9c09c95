import HuddleWire
import NIOCore

extension PeerSession {
    /// What the link to `peer` measured; nil unless it is connected.
    public func linkStatistics(for peer: PeerID) async -> PeerLinkStatistics? {
        guard let id = machine.connection(of: peer), let io = io[id] else { return nil }
        var statistics = await datagrams.statistics(on: id, version: io.version)
        if let channel = io.channel {
            statistics.queuedBytes = (try? await channel.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
        }
        return statistics
    }

    /// Sends a PING of `size` bytes to `peer` and waits for its PONG: the round trip, or nil when none came within
    /// `timeout`. Every session answers PINGs; the peer must speak protocol version 3.
    ///
    /// A PING is a datagram (13 to ``maximumDatagramPayload`` bytes), or with `reliable` a message on the TLS
    /// stream (8 bytes or more), which waits behind the reliable messages sent before it (`docs/realtime.md`).
    /// - Throws: ``PeerSessionError/notConnected(_:)``, ``PeerSessionError/needsNewerPeer(_:version:)``.
    public func ping(
        _ peer: PeerID,
        size: Int = 0,
        timeout: Duration = .seconds(2),
        reliable: Bool = false
    ) async throws -> Duration? {
        guard let id = machine.connection(of: peer) else { throw PeerSessionError.notConnected(peer) }
        if reliable { return try await wiring.pings.ping(peer, size: size, timeout: timeout) }
        return try await datagrams.ping(peer, on: id, size: size, timeout: timeout)
    }
}

extension SessionDatagrams {
    func statistics(on id: ConnectionID, version: UInt8) -> PeerLinkStatistics {
        guard let realtime = links.realtime(on: id) else {
            return PeerLinkStatistics(protocolVersion: version, datagramPath: .none)
        }
        let counts = realtime.counts
        let path: PeerLinkStatistics.DatagramPath =
            switch realtime.path.path(now: now) {
            case .udp: .udp
            case .unconfirmed: .unconfirmed
            case .tls: .tls
            }
        var statistics = PeerLinkStatistics(protocolVersion: version, datagramPath: path)
        statistics.messagesOnStream = counts.messagesOnStream
        statistics.smoothedRoundTrip = realtime.roundTrip.smoothed
        statistics.roundTripVariation = realtime.roundTrip.variation
        statistics.lossOut = counts.lossOut
        statistics.lossBack = counts.lossBack
        statistics.datagramsSent = counts.datagramsSent
        statistics.datagramsReceived = counts.datagramsReceived
        statistics.bytesSent = counts.bytesSent
        statistics.bytesReceived = counts.bytesReceived
        return statistics
    }
}
