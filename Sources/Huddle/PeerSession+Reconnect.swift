import HuddleTransport
import HuddleWire

extension PeerSession {
    /// After a connection to a pinned peer drops without a goodbye, it is made again, without a prompt: by the
    /// side with the lower (device ID, instance), after 0.5 s doubling up to 30 s with ±20 % jitter
    /// (`docs/security.md` §4.9), while the peer is advertised. A peer that comes back as a new instance (a
    /// restarted program) with the same pinned device is connected as soon as it is found.
    func scheduleReconnect(to peer: PeerID, attempt: Int) {
        guard configuration.reconnectsDroppedPeers, mode.browses, !stopped, attempt < 12,
            let record = peers[peer], record.connection == nil, let device = record.info.deviceID,
            device == identity.deviceID || trustStore.isPinned(device),
            DialOrder.localDials(local: (identity.deviceID, peerID), remote: (device, peer))
        else { return }
        reconnecting.insert(peer)
        let base = min(30.0, 0.5 * Double(1 << min(attempt, 6)))
        let delay = base * Double.random(in: 0.8...1.2)
        track { [weak self] in
            try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            await self?.reconnect(to: peer, attempt: attempt)
        }
    }

    func reconnect(to peer: PeerID, attempt: Int) async {
        guard reconnecting.contains(peer), !stopped else { return }
        guard peers[peer]?.connection == nil else {
            reconnecting.remove(peer)
            return
        }
        guard peers[peer]?.advert != nil else { return }  // found() tries again when it is back
        do {
            try await connect(to: peer, timeout: .seconds(30))
            reconnecting.remove(peer)
        } catch {
            scheduleReconnect(to: peer, attempt: attempt + 1)
        }
    }

    /// A peer was found: reconnect if it is one we lost, or the same pinned device under a new instance.
    func reconnectIfLost(_ advert: PeerAdvert) {
        if reconnecting.contains(advert.peer) {
            scheduleReconnect(to: advert.peer, attempt: 0)
        } else if droppedDevices.contains(advert.deviceID), trustStore.isPinned(advert.deviceID) {
            droppedDevices.remove(advert.deviceID)
            scheduleReconnect(to: advert.peer, attempt: 0)
        }
    }
}
