import HuddleTransport
import HuddleWire
import NIOCore
import Synchronization

extension PeerSession {
    /// Connects to `peer`: TLS, then a connection request the other side accepts or denies. At first contact both
    /// sides are shown the same six-digit code, and this side must accept its ``PeerConnectionRequest`` too
    /// (direction `.outgoing`).
    ///
    /// - Parameters:
    ///   - timeout: how long to wait for the whole exchange, decisions included.
    ///   - context: shown to the other user with the request (at most 1 KiB).
    /// - Throws: ``PeerSessionError``: `.connection(.wire(.pairingRejected))` on a deny, `.connectTimedOut`,
    ///   `.connection(.peerIdentityMismatch)` when a pinned peer answers with another key, …
    ///
    /// At first contact the pairing budget (``PairingBudget``) comes first: while this session pairs with another
    /// device, or the peer is busy pairing one, this waits and tries again within `timeout`; while pairing is
    /// paused after failed runs it throws `.pairingRateLimited`.
    public func connect(to peer: PeerID, timeout: Duration = .seconds(60), context: [UInt8] = []) async throws {
        let attempts = ConnectAttempts(peer: peer, timeout: timeout, now: clock.now)
        let waits = ConnectWaits(pairingGate: pairingGate, clock: clock)
        while true {
            guard !Task.isCancelled || stopped else { throw PeerSessionError.cancelled }
            let plan = try machine.connectPlan(to: peer, contextSize: context.count)
            guard case .dial(let address, let expected, let pairing) = plan else { return }
            if let pairing { try await waits.waitForPairingBudget(pairing, attempts) { await self.stopped } }
            let step: ConnectAttempts.Step
            do {
                return try await dial(
                    peer,
                    at: address,
                    expecting: expected,
                    until: attempts.deadline,
                    context: context
                )
            } catch let error as PeerSessionError where error.code != .cancelled {
                step = attempts.dialFailed(error, now: clock.now, retryDelay: machine.pairingRetryDelay())
            }
            try await waits.carryOut(step)
        }
    }

    /// One connection attempt: TLS, the handshake, the decisions.
    func dial(
        _ peer: PeerID,
        at address: SocketAddress,
        expecting expected: DeviceID?,
        until deadline: ContinuousClock.Instant,
        context: [UInt8],
        purpose: PeerHandshake.Purpose = .connect
    ) async throws {
        let timeout = clock.now.duration(to: deadline)
        let id = wiring.nextConnectionID()
        let route = MessageRoute()
        io[id] = ConnectionIO(channel: nil, remote: address, route: route)
        apply(.dialStarted(id, peer: peer, timeout: timeout))
        let wiring = wiring.setup(
            role: .initiator,
            connection: id,
            route: route,
            context: context,
            expected: expected,
            purpose: purpose
        )
        let (inbox, group, tls, transport) = (self.inbox, self.group, self.tls, configuration.transport)
        track {
            do {
                _ = try await transport.dial(address, group: group, tls: tls, wiring: wiring) { channel in
                    inbox.yield(.dialed(id, .success(channel)))
                }
            } catch let error as PeerConnectionError {
                inbox.yield(.dialed(id, .failure(.connection(error))))
            } catch {
                inbox.yield(.dialed(id, .failure(.connection(.connectFailed("\(error)")))))
            }
        }
        // Cancelling the calling task gives up this attempt (the rules' cancelDial runs on the actor, so after the
        // waiter below is in place).
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if let decided = finishedWaiters.removeValue(forKey: id) {
                    if let error = decided { continuation.resume(throwing: error) } else { continuation.resume() }
                } else {
                    connectWaiters[id] = continuation
                }
            }
        } onCancel: { [weak self] in
            Task { await self?.apply(.cancelDial(id)) }
        }
    }

    /// Gives up a `connect` in progress; it throws `.cancelled`. Cancelling the task that called `connect` does
    /// the same.
    public func cancelConnect(to peer: PeerID) {
        apply(.cancelConnect(peer))
    }

    /// Accepts a request (after the user compared the code, at first contact).
    public func accept(_ request: PeerConnectionRequest) {
        apply(.decide(request.id, accept: true))
    }

    /// Denies a request: the other side gets `pairingRejected(.denied)`; nothing is pinned.
    public func deny(_ request: PeerConnectionRequest) {
        apply(.decide(request.id, accept: false))
    }

    /// Sends a message to each of `peers`. Reliable messages are ordered per peer and whole or not at all; the
    /// call returns once the message is queued within each connection's write buffer, and waits while a peer's
    /// buffer is full, so a slow peer holds up only sends that include it and memory stays bounded.
    ///
    /// A reliable message that was queued arrives once, in order — on this connection, or on the next one when the
    /// connection is lost and the peer comes back within ``PeerSessionConfiguration/redeliveryWindow`` — or is
    /// reported in ``PeerSessionEvent/undelivered(_:to:)``.
    ///
    /// Each message goes on `channel` (0 to 255) in `mode`; the receiver's ``PeerSessionEvent/received(_:from:_:)``
    /// says both. Unreliable messages up to ``maximumUnreliableMessage`` bytes are cut into datagrams and rebuilt
    /// whole or not at all (`docs/realtime.md`).
    ///
    /// - Throws: ``PeerSessionError`` for the first peer that failed (not connected, too large, a peer of protocol
    ///   version 2 asked for more than channel 0's ordered or plain unreliable messages), before anything is
    ///   queued.
    public nonisolated func send(
        _ bytes: [UInt8],
        to peers: [PeerID],
        mode: PeerSendMode = .reliable,
        channel: UInt8 = 0
    ) async throws {
        guard mode.isReliable else {
            return try await sendDatagram(bytes, PeerDelivery(mode, channel: channel), to: peers)
        }
        try await MessageSender(
            flow: flow,
            inbox: inbox,
            maximumMessageSize: configuration.connection.maximumMessageSize
        ).send(bytes, to: peers, header: ReliableMessageHeader(unordered: mode == .reliableUnordered, channel: channel))
    }

    /// Sends to every connected peer.
    public func sendToAllPeers(_ bytes: [UInt8], mode: PeerSendMode = .reliable, channel: UInt8 = 0) async throws {
        try await send(bytes, to: peers(in: .connected), mode: mode, channel: channel)
    }

    /// Says goodbye to `peer` and closes the connection.
    public func disconnect(_ peer: PeerID) {
        apply(.disconnect(peer))
    }

    /// Says goodbye to every peer.
    public func disconnectFromAllPeers() {
        apply(.disconnectAll)
    }
}
