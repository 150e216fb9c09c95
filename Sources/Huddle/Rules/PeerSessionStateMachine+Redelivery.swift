import HuddleTransport
import HuddleWire
import NIOCore

/// Reliable messages across lost connections: what a connection leaves unacknowledged is kept for the peer's
/// next connection within the redelivery window, sent again first there (the peer's `DeliveryCounter` drops what
/// it already has), or reported as `undelivered`. See `docs/wire-protocol.md`, "RESUME".
extension PeerSessionStateMachine {
    /// Starts a new connection's numbering, of protocol `version`: after the messages kept for `peer`, sent again
    /// first, or above every number used before. Kept messages of version 2 gain the header of channel 0's ordered
    /// messages on a link of version 3; on a link of version 2 after one of version 3 (the peer went back to an
    /// older Huddle within the window) they cannot be framed, and are reported undelivered.
    mutating func resumeDelivery(to peer: PeerID, on id: ConnectionID, version: UInt8 = 2) {
        var outbox = peers[peer]?.outbox
        let kept = peers[peer]?.version ?? 2
        peers[peer]?.outbox = nil
        peers[peer]?.version = version
        if let messages = outbox?.messages, kept >= 3, version < 3 {
            reportUndelivered(messages, to: peer, version: kept)
            outbox = nil
        } else if kept < 3, version >= 3, let messages = outbox?.messages {
            let header = ReliableMessageHeader(.ordered, channel: 0).encoded
            outbox?.messages = messages.map { ByteBuffer(bytes: header + $0.readableBytesView) }
        }
        let first = outbox?.first ?? sequenceFloor
        write(.resume(from: first, redeliver: outbox?.messages ?? []), on: id)
    }

    /// A connection to `peer` ended with `messages` (numbered up to `next`) unacknowledged; the last
    /// `unsentCount` of them were refused writes with no number yet.
    mutating func keepForRedelivery(
        _ messages: [ByteBuffer],
        next: UInt64,
        unsentCount: Int,
        to peer: PeerID,
        orReport report: Bool
    ) {
        if let earlier = peers[peer]?.outbox {
            peers[peer]?.outbox = nil
            reportUndelivered(earlier.messages, to: peer)
        }
        guard !report, peers[peer] != nil else { return reportUndelivered(messages, to: peer) }
        // Kept even when empty: a write refused a moment later (`unsent`) joins it instead of being reported lost.
        outboxGeneration += 1
        let first = next - UInt64(messages.count - unsentCount)
        peers[peer]?.outbox = SessionPeer.Outbox(messages: messages, first: first, generation: outboxGeneration)
        actions.append(
            .schedule(.redeliveryWindow(peer, generation: outboxGeneration), after: configuration.redeliveryWindow)
        )
    }

    mutating func redeliveryWindowPassed(for peer: PeerID, generation: Int) {
        guard let outbox = peers[peer]?.outbox, outbox.generation == generation else { return }
        peers[peer]?.outbox = nil
        reportUndelivered(outbox.messages, to: peer)
    }

    /// The session stops: nothing kept will be sent again.
    mutating func reportOutboxes() {
        for peer in peers.keys.sorted() {
            guard let outbox = peers[peer]?.outbox else { continue }
            peers[peer]?.outbox = nil
            reportUndelivered(outbox.messages, to: peer)
        }
    }

    /// A write the connection refused: it joins what the connection leaves unacknowledged, or what a lost
    /// connection already left, or — refused by a connection the tie-break replaced, after the survivor's RESUME
    /// went out — goes on the survivor; else it is reported.
    mutating func unsent(_ message: ByteBuffer, to peer: PeerID, connection id: ConnectionID?) {
        if let id, connections[id] != nil {
            connections[id]?.unsent.append(message)
        } else if peers[peer]?.outbox != nil {
            peers[peer]?.outbox?.messages.append(message)
        } else if let current = peers[peer]?.flowConnection, current != id, connections[current]?.phase == .connected {
            write(.message(message), on: current)
        } else {
            reportUndelivered([message], to: peer)
        }
    }

    /// Reports the application's `messages` to `peer` undelivered, as the application sent them: from version 3
    /// on without their header, and without the session's own (PINGs, PONGs) or unreliable messages that went on
    /// the stream.
    mutating func reportUndelivered(_ messages: [ByteBuffer], to peer: PeerID, version: UInt8? = nil) {
        guard (version ?? peers[peer]?.version ?? 2) >= 3 else {
            guard !messages.isEmpty else { return }
            return emit(.undelivered(messages.map { Array($0.readableBytesView) }, to: peer))
        }
        let reported = messages.compactMap { message -> [UInt8]? in
            var body = message
            guard let header = ReliableMessageHeader(readingFrom: &body),
                header.kind == .ordered || header.kind == .unordered
            else { return nil }
            return Array(body.readableBytesView)
        }
        guard !reported.isEmpty else { return }
        emit(.undelivered(reported, to: peer))
    }
}
