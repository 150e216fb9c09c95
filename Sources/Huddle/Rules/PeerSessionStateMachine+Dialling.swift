import HuddleTransport
import HuddleWire
import NIOCore

/// Dialling, giving up, saying goodbye, and the reconnect schedule.
extension PeerSessionStateMachine {
    /// What a `connect` to `peer` should do now.
    enum ConnectPlan: Equatable {
        case alreadyConnected
        /// Dial `address`, expecting `expected` (nil at first contact, which first needs the pairing budget for
        /// `pairing`).
        case dial(SocketAddress, expected: DeviceID?, pairing: PairingBudget.Source?)
    }

    /// What a `connect` to `peer` with a context of `contextSize` bytes should do, or why it cannot.
    func connectPlan(to peer: PeerID, contextSize: Int) throws(PeerSessionError) -> ConnectPlan {
        guard !stopped else { throw .stopped }
        guard local.mode.browses else { throw .notAllowedInMode(local.mode) }
        guard let record = peers[peer], let advert = record.advert, let address = advert.addresses.first else {
            throw .unknownPeer(peer)
        }
        if let existing = record.connection, connections[existing]?.phase == .connected { return .alreadyConnected }
        let limit = configuration.connection.handshake.maximumContextSize
        guard contextSize <= limit else { throw .messageTooLarge(limit: limit, size: contextSize) }
        let expected = expectedDevice(of: record)
        let source = expected == nil ? PairingGate.source(device: advert.deviceID, address: address) : nil
        return .dial(address, expected: expected, pairing: source)
    }

    /// The device a connection to `record`'s peer must reach: the one TLS proved before, else a pinned device
    /// the advert names; `nil` at first contact. An advert alone never changes a verified peer's key.
    func expectedDevice(of record: SessionPeer) -> DeviceID? {
        if record.info.deviceIDVerified, let device = record.info.deviceID { return device }
        guard let advertised = record.advert?.deviceID, trust.isPinned(advertised) else { return nil }
        return advertised
    }

    /// How long a `connect` waits before trying again when the peer was busy pairing: 0.5 to 1.5 s.
    mutating func pairingRetryDelay() -> Duration {
        .milliseconds(Int.random(in: 500...1500, using: &generator))
    }

    /// The close reason of a pairing run the budget refused, on either side.
    static func pairingRefusal(_ error: PeerWireError) -> PeerCloseReason? {
        switch error {
        case .pairingRefused(let reason), .closedByPeer(let reason), .pairingRejected(let reason):
            reason == .pairingBusy || reason == .pairingPaused ? reason : nil
        default: nil
        }
    }

    /// Gives up the dial `id`: its `connect` throws `.cancelled`; a connection already open is closed with CLOSE
    /// `cancelled`, one still opening is dropped when it opens.
    mutating func cancelDial(_ id: ConnectionID, now: ContinuousClock.Instant) {
        if parkedWaiters.removeValue(forKey: id) != nil { finish(waiter: id, .cancelled) }
        guard let slot = connections[id], slot.role == .initiator, !slot.hasConnected else { return }
        guard slot.phase != .dialling else { return connectionEnded(id, error: .cancelled, now: now) }
        if let waiter = slot.waiter { finish(waiter: waiter, .cancelled) }
        connections[id]?.waiter = nil
        write(.close(.cancelled), on: id)
    }

    mutating func cancelConnect(to peer: PeerID, now: ContinuousClock.Instant) {
        for id in connections.keys.sorted() {
            guard let slot = connections[id], slot.role == .initiator, !slot.hasConnected,
                slot.peer == peer || slot.intended == peer
            else { continue }
            cancelDial(id, now: now)
        }
    }

    /// The deadline of dial `id` passed: its `connect` call (waiting on the dial, or parked on another connection
    /// to the peer) throws `connectTimedOut`, and a connection not yet through its handshake closes. A deadline of a
    /// call that ended already changes nothing.
    mutating func connectTimedOut(_ id: ConnectionID, peer: PeerID) {
        let parked = parkedWaiters.removeValue(forKey: id) != nil
        if parked { finish(waiter: id, .connectTimedOut(peer)) }
        guard let slot = connections[id], !slot.hasConnected else { return }
        if let waiter = slot.waiter {
            finish(waiter: waiter, .connectTimedOut(peer))
        } else if !parked {
            return
        }
        connections[id]?.waiter = nil
        write(.close(.timedOut), on: id)
    }

    /// Says goodbye to `peer`: sends stop at once, the connection closes.
    mutating func disconnect(_ peer: PeerID) {
        guard let id = peers[peer]?.connection, connections[id] != nil else { return closeFlow(peer) }
        connections[id]?.close()
        closeFlow(peer)
        write(.close(.goodbye), on: id)
    }

    /// Ends every connection to a device the trust store now blocks. A forgotten peer's connection is left as it
    /// is, but it must pair again the next time.
    mutating func trustChanged() {
        for id in connections.keys.sorted() {
            guard let slot = connections[id], !slot.isClosing, let device = slot.remote, device != local.device,
                trust.isBlocked(device)
            else { continue }
            connections[id]?.close()
            if let peer = slot.peer {
                if peers[peer]?.flowConnection == id { closeFlow(peer) }
                reconnecting.remove(peer)
            }
            droppedDevices.remove(device)
            write(.close(.refused), on: id)
        }
    }

    // MARK: - Reconnecting

    /// After a connection to a pinned peer drops without a goodbye, it is made again, without a prompt: by the
    /// side with the lower (device ID, instance) or the side that found the peer at a direct address, after 0.5 s doubling up to 30 s with ±20 % jitter
    /// (`docs/security.md` §4.9), at most 12 attempts, while the peer is advertised. A peer that comes back as a
    /// new instance (a restarted program) with the same pinned device is connected as soon as it is found.
    mutating func scheduleReconnect(to peer: PeerID, attempt: Int) {
        guard configuration.reconnectsDroppedPeers, local.mode.browses, !stopped, attempt < 12,
            let record = peers[peer], record.connection == nil, let device = record.info.deviceID,
            device == local.device || trust.isPinned(device), dials(record, device: device)
        else { return }
        reconnecting.insert(peer)
        actions.append(.schedule(.reconnect(peer, attempt: attempt), after: reconnectDelay(attempt: attempt)))
    }

    /// 0.5 s doubling up to 30 s, ±20 %.
    mutating func reconnectDelay(attempt: Int) -> Duration {
        let base = min(30.0, 0.5 * Double(1 << min(attempt, 6)))
        let delay = base * Double.random(in: 0.8...1.2, using: &generator)
        return .seconds(delay)
    }

    mutating func reconnectDue(_ peer: PeerID, attempt: Int) {
        guard reconnecting.contains(peer), !stopped else { return }
        guard peers[peer]?.connection == nil else {
            reconnecting.remove(peer)
            return
        }
        guard peers[peer]?.advert != nil else { return }  // found() tries again when it is back
        actions.append(.connect(peer, timeout: .seconds(30), reason: .reconnect(attempt: attempt)))
    }

    /// A `connect` the rules asked for ended. An automatic dial of a found peer that failed is reported
    /// (`autoConnectFailed`, with why), and made again if the peer's advert moved to another address meanwhile; a
    /// failed reconnect is tried again later, a successful one ends the schedule.
    mutating func connectEnded(_ peer: PeerID, reason: ConnectReason, failure: PeerSessionError?) {
        if reason == .found, let failure {
            emit(.peerError(peer, .autoConnectFailed(failure)))
            connectIfFound(peer)
        }
        guard case .reconnect(let attempt) = reason else { return }
        if failure == nil {
            reconnecting.remove(peer)
        } else {
            scheduleReconnect(to: peer, attempt: attempt + 1)
        }
    }

    /// A peer was found: reconnect if it is one we lost, or the same pinned device under a new instance.
    mutating func reconnectIfLost(_ advert: PeerAdvert) {
        if reconnecting.contains(advert.peer) {
            scheduleReconnect(to: advert.peer, attempt: 0)
        } else if droppedDevices.contains(advert.deviceID), trust.isPinned(advert.deviceID) {
            droppedDevices.remove(advert.deviceID)
            scheduleReconnect(to: advert.peer, attempt: 0)
        }
    }
}
