import HuddleTransport
import NIOCore

/// Reliable messages across lost connections: what a connection leaves unacknowledged is kept for the peer's
/// next connection within the redelivery window, sent again first there (the peer's `DeliveryCounter` drops what
/// it already has), or reported as `undelivered`.
extension PeerSession {
    /// Starts a new connection's numbering: after the messages kept for `peer`, sent again first, or above every
    /// number used before.
    func resumeDelivery(to peer: PeerID, on channel: any Channel) {
        let outbox = peers[peer]?.outbox
        peers[peer]?.outbox = nil
        let first = outbox?.first ?? sequenceFloor
        channel.writeAndFlush(PeerOutbound.resume(from: first, redeliver: outbox?.messages ?? []), promise: nil)
    }

    /// A connection to `peer` ended with `messages` (numbered up to `next`) unacknowledged.
    func keepForRedelivery(
        _ messages: [ByteBuffer],
        next: UInt64,
        unsentCount: Int = 0,
        to peer: PeerID,
        orReport report: Bool
    ) {
        if let earlier = peers[peer]?.outbox {
            peers[peer]?.outbox = nil
            emit(.undelivered(earlier.messages.map { Array($0.readableBytesView) }, to: peer))
        }
        guard !report, peers[peer] != nil else {
            if !messages.isEmpty { emit(.undelivered(messages.map { Array($0.readableBytesView) }, to: peer)) }
            return
        }
        // Kept even when empty: a write refused a moment later (`unsent`) joins it instead of being reported lost.
        outboxGeneration += 1
        let generation = outboxGeneration
        // The messages refused after the failure had no numbers: they follow the unacknowledged ones.
        let first = next - UInt64(messages.count - unsentCount)
        peers[peer]?.outbox = Outbox(messages: messages, first: first, generation: generation)
        let window = configuration.redeliveryWindow
        track { [weak self] in
            try? await Task.sleep(for: window)
            guard !Task.isCancelled else { return }
            await self?.redeliveryWindowPassed(for: peer, generation: generation)
        }
    }

    func redeliveryWindowPassed(for peer: PeerID, generation: Int) {
        guard let outbox = peers[peer]?.outbox, outbox.generation == generation else { return }
        peers[peer]?.outbox = nil
        guard !outbox.messages.isEmpty else { return }
        emit(.undelivered(outbox.messages.map { Array($0.readableBytesView) }, to: peer))
    }

    /// The session stops: nothing kept will be sent again.
    func reportOutboxes() {
        for (peer, record) in peers {
            guard let outbox = record.outbox else { continue }
            peers[peer]?.outbox = nil
            guard !outbox.messages.isEmpty else { continue }
            emit(.undelivered(outbox.messages.map { Array($0.readableBytesView) }, to: peer))
        }
    }

    /// A numbered reliable message that came through the inbox.
    func receivedMessage(_ buffer: ByteBuffer, sequence: UInt64, on id: Int) {
        guard let slot = connections[id] else { return flow.consumed(buffer.readableBytes) }
        defer { slot.route.leftInbox() }
        guard let peer = slot.peer, let delivery = peers[peer]?.delivery, delivery.admit(sequence) else {
            return flow.consumed(buffer.readableBytes)
        }
        emit(.received(Array(buffer.readableBytesView), from: peer))
    }

    /// A write the connection refused: it joins what the connection leaves unacknowledged, or what a lost
    /// connection already left, or is reported.
    func unsent(_ message: ByteBuffer, to peer: PeerID, channel: ObjectIdentifier) {
        if let id = connections.first(where: { $0.value.channel.map(ObjectIdentifier.init) == channel })?.key {
            connections[id]?.unsent.append(message)
        } else if peers[peer]?.outbox != nil {
            peers[peer]?.outbox?.messages.append(message)
        } else {
            emit(.undelivered([Array(message.readableBytesView)], to: peer))
        }
    }
}
