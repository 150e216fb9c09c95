public import Huddle
public import HuddlePasteboard

extension ClipboardSync {
    /// Shares `item` with `peer` on purpose: the user there is asked before it goes on their clipboard.
    ///
    /// - Returns: when the peer took the item.
    /// - Throws: ``ClipboardSyncError`` `.refused` (secret, too large, no allowed type: nothing was sent),
    ///   `.declined` with the receiver's reason; ``PeerSessionError/notConnected(_:)``.
    public func share(_ item: PasteboardItem, to peer: PeerID) async throws {
        let admitted: PasteboardItem
        switch configuration.filter.admit(item) {
        case .refuse(let reason): throw ClipboardSyncError.refused(reason)
        case .admit(let kept): admitted = kept
        }
        guard connected.contains(peer) else { throw PeerSessionError.notConnected(peer) }
        let stamp = core.stampForShare(now: wallClock())
        // The waiter is in place before the item goes, so even an instant answer finds it.
        try await withCheckedThrowingContinuation { continuation in
            shareWaiters[stamp] = (peer, continuation)
            Task { await self.sendShare(ClipMessage.share(stamp, admitted), to: peer) }
        }
    }

    func sendShare(_ message: ClipMessage, to peer: PeerID) async {
        guard message.encoded().count <= ClipMessage.largestDirectMessage else {
            return await send(message, to: [peer])
        }
        do {
            try await session.send(message.encoded(), to: [peer])
        } catch {
            failShare(message.stamp, peer: peer, error: error)
        }
    }

    /// Takes a shared item: the sender hears it was taken. Putting it on a clipboard or in a file is the caller's
    /// choice.
    public func acceptShare(_ offer: ClipShareOffer) async -> PasteboardItem {
        await send(.answer(offer.stamp, accepted: true, reason: ""), to: [offer.peer])
        emit.yield(.taken(offer.summary, from: offer.peerName))
        return offer.item
    }

    /// Declines a shared item; the sender's ``share(_:to:)`` throws `.declined(reason)`.
    public func declineShare(_ offer: ClipShareOffer, reason: String = "declined") async {
        await send(.answer(offer.stamp, accepted: false, reason: reason), to: [offer.peer])
    }

    /// The paired peers connected now.
    public var connectedPeers: [PeerID] { connected.sorted() }
}
