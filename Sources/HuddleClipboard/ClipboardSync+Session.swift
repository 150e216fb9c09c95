import Huddle
import HuddlePasteboard
import HuddleTransport

extension ClipboardSync {
    func handle(_ event: PeerSessionEvent) async {
        switch event {
        case .stateChanged(let peer, .connected):
            await peerConnected(peer)
        case .stateChanged(let peer, .disconnected), .stateChanged(let peer, .unavailable):
            guard connected.remove(peer) != nil else { return }
            for (stamp, waiter) in shareWaiters where waiter.peer == peer {
                shareWaiters[stamp] = nil
                waiter.continuation.resume(throwing: PeerSessionError.notConnected(peer))
            }
            emit.yield(.peerDisconnected(peer, name: await name(peer)))
        case .stateChanged:
            return
        case .connectionRequest(let request):
            emit.yield(.connectionRequest(request))
        case .received(let bytes, let peer, _):
            await received(bytes, from: peer)
        case .transferOffered(let transfer):
            await offered(transfer)
        case .transferReceivedData(let id, let peer, let data):
            guard incomingItems.removeValue(forKey: id) != nil else { return }
            await received(Array(data), from: peer)
        case .transferProgress(let progress):
            guard progress.direction == .sending || incomingItems[progress.id] != nil else { return }
            emit.yield(.progress(progress, peer: await name(progress.peer)))
        case .transferFailed(let id, let peer, let error):
            guard incomingItems.removeValue(forKey: id) != nil else { return }
            emit.yield(.notTaken(nil, from: await name(peer), reason: "the item did not arrive whole: \(error)"))
        case .peerError(let peer?, let failure) where failure.code == .autoConnectFailed:
            let error = failure.underlying.map { "\($0)" } ?? "\(failure)"
            emit.yield(.problem("could not connect to \(await name(peer)): \(error)"))
        case .peerError(let peer, let error):
            let who = if let peer { await name(peer) } else { "session" }
            emit.yield(.problem("\(who): \(error)"))
        case .pairingPaused(let pause):
            emit.yield(.problem("\(pause)"))
        case .addressUnreachable(let address, let error):
            emit.yield(.problem("\(address): \(error) (trying again)"))
        case .undelivered(let messages, let peer):
            emit.yield(.problem("\(messages.count) clipboard messages to \(await name(peer)) were not delivered"))
        case .peerFound, .connectionRequestEnded, .transferFinished, .pairedByLink:
            return
        }
    }

    /// A large item coming as an in-memory transfer: taken into memory when the peer is paired and the size
    /// within the cap; anything else (files, directories) is declined with the reason.
    func offered(_ transfer: IncomingTransfer) async {
        let name = await name(transfer.peer)
        guard transfer.type == ClipMessage.transferType, !transfer.isDirectory else {
            await session.declineTransfer(transfer, reason: "clipboard sync takes no files; use huddle receive")
            return
        }
        guard connected.contains(transfer.peer) else {
            await session.declineTransfer(transfer, reason: "not paired with this machine")
            emit.yield(.notTaken(nil, from: name, reason: "it is not paired with this machine"))
            return
        }
        // The message carries the item plus a few hundred bytes of framing.
        let limit = UInt64(configuration.filter.maximumBytes) + 64 * 1024
        guard transfer.size <= limit else {
            let reason =
                "it is \(ByteCountText.describe(Int(clamping: transfer.size))), over the "
                + "\(ByteCountText.describe(configuration.filter.maximumBytes)) limit"
            await session.declineTransfer(transfer, reason: reason)
            emit.yield(.notTaken(nil, from: name, reason: reason))
            return
        }
        do {
            try await session.acceptTransferIntoMemory(transfer)
            incomingItems[transfer.id] = transfer.peer
        } catch {
            await session.declineTransfer(transfer, reason: "\(error)")
            emit.yield(.notTaken(nil, from: name, reason: "\(error)"))
        }
    }

    /// A connected peer takes part once its device is pinned (paired with the code, or trusted on first use);
    /// it gets the current item, never older ones.
    func peerConnected(_ peer: PeerID) async {
        let name = await name(peer)
        guard let device = await session.info(for: peer)?.deviceID, session.trustStore.isPinned(device) else {
            emit.yield(.problem("\(name) is connected but not paired; nothing is exchanged with it"))
            return
        }
        connected.insert(peer)
        emit.yield(.peerConnected(peer, name: name))
        if configuration.syncs, let stamp = core.current?.stamp, let currentItem, core.sendsCurrent(now: wallClock()) {
            await send(.sync(stamp, currentItem), to: [peer])
        }
    }

    func received(_ bytes: [UInt8], from peer: PeerID) async {
        let name = await name(peer)
        let message: ClipMessage
        do {
            message = try ClipMessage(decoding: bytes)
        } catch {
            emit.yield(.notTaken(nil, from: name, reason: "\(error)"))
            return
        }
        guard connected.contains(peer) else {
            emit.yield(.notTaken(nil, from: name, reason: "it is not paired with this machine"))
            return
        }
        switch message {
        case .sync(let stamp, let item):
            await receivedSync(item, stamp: stamp, from: peer, name: name)
        case .share(let stamp, let item):
            if case .refuse(let reason) = configuration.filter.admit(item) {
                await refuse(item, stamp: stamp, from: peer, name: name, reason: reason)
                return
            }
            emit.yield(.shareOffered(ClipShareOffer(peer: peer, peerName: name, stamp: stamp, item: item)))
        case .answer(let stamp, let accepted, let reason):
            if let waiter = shareWaiters[stamp], waiter.peer == peer {
                shareWaiters[stamp] = nil
                if accepted {
                    waiter.continuation.resume()
                } else {
                    waiter.continuation.resume(throwing: ClipboardSyncError.declined(reason))
                }
            } else if !accepted {
                emit.yield(.refusedByPeer(name, reason: reason))
            }
        }
    }

    func receivedSync(_ item: PasteboardItem, stamp: ClipStamp, from peer: PeerID, name: String) async {
        guard configuration.syncs, pasteboard != nil else {
            await refuse(
                item,
                stamp: stamp,
                from: peer,
                name: name,
                reason: "this machine is not syncing its clipboard"
            )
            return
        }
        let admitted: PasteboardItem
        switch configuration.filter.admit(item) {
        case .refuse(let reason):
            await refuse(item, stamp: stamp, from: peer, name: name, reason: reason)
            return
        case .admit(let kept):
            admitted = kept
        }
        let digest = ClipboardItemFilter.digest(of: admitted)
        let now = wallClock()
        switch core.remoteItem(stamp: stamp, digest: digest, now: now) {
        case .take(let sameContent):
            currentItem = admitted
            if !sameContent { await write(admitted, what: "\(name)'s item") }
            emit.yield(.taken(ClipItemSummary(admitted, stamp: stamp), from: name))
            await deliverToLinked(admitted, stamp: stamp)
            let others = trustedConnectedPeers(except: peer)
            if !others.isEmpty, core.passesOn(stamp, now: now) { await send(.sync(stamp, admitted), to: others) }
        case .stale, .duplicate:
            return
        case .refused(let reason):
            await refuse(item, stamp: stamp, from: peer, name: name, reason: reason)
        }
    }

    /// Tells the sender why its item was not taken, and the user here.
    func refuse(_ item: PasteboardItem, stamp: ClipStamp, from peer: PeerID, name: String, reason: String) async {
        emit.yield(.notTaken(ClipItemSummary(item), from: name, reason: reason))
        await send(.answer(stamp, accepted: false, reason: reason), to: [peer])
    }
}
