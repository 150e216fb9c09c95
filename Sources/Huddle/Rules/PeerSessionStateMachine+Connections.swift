import HuddleTransport
import HuddleWire
import Logging

/// Connections from open to closed: tying each to the peer its HELLO names, the duplicate tie-break, decisions,
/// and what a connection's end means for its peer.
extension PeerSessionStateMachine {
    mutating func accepted(_ id: ConnectionID) {
        guard !stopped else { return actions.append(.closeChannel(id)) }
        connections[id] = SessionConnection(id: id, role: .responder, phase: .handshaking)
    }

    mutating func dialStarted(_ id: ConnectionID, peer: PeerID, timeout: Duration) {
        guard !stopped else { return finish(waiter: id, .stopped) }
        actions.append(.schedule(.connectDeadline(id, peer: peer), after: timeout))
        var slot = SessionConnection(id: id, role: .initiator, phase: .dialling)
        slot.intended = peer
        slot.waiter = id
        connections[id] = slot
        peers[peer]?.info.state = .connecting
        emit(.stateChanged(peer, .connecting))
    }

    mutating func opened(_ id: ConnectionID) {
        guard !stopped, connections[id]?.phase == .dialling else { return actions.append(.closeChannel(id)) }
        connections[id]?.phase = .handshaking
    }

    /// The peer's HELLO is known: tie the connection to the peer it names, refusing ourselves, duplicates that
    /// lose the tie-break, and peers over the limit. Returns the updated connection, or `nil` when it was
    /// refused.
    ///
    /// A peer is the device TLS proved, not the instance its HELLO names (`docs/threat-model.md`, "A peer is its
    /// device"): an instance bound to another verified device is refused with `instanceTaken`, and a connection
    /// from one device never displaces another device's. A device that is not pinned changes nothing in the peer
    /// table until both sides accepted (``bind(_:name:device:connection:)`` runs then): before that its
    /// connection only knows the peer it claims.
    mutating func attach(_ hello: PeerHello, on id: ConnectionID) -> SessionConnection? {
        guard var slot = connections[id], !slot.isClosing, let device = slot.remote else { return nil }
        let peer = PeerID(rawValue: hello.instance)
        if peer == local.instance {
            // Only a dial of our own address names our own instance: the address, not the peer, was wrong.
            actions.append(
                .log(.warning, "refused a connection from this session itself (a dial reached its own address)", [:])
            )
            write(.close(.ownInstance), on: id)
            return nil
        }
        if let owner = verifiedDevice(of: peer), owner != device {
            refuseClaim(of: peer, by: device, on: id)
            return nil
        }
        slot.peer = peer
        connections[id] = slot
        if let existing = otherConnection(to: peer, besides: id), let old = connections[existing],
            let other = old.remote, other != device
        {
            guard owns(peer, device), !owns(peer, other), !old.hasConnected else {
                connections[id]?.peer = nil
                refuseClaim(of: peer, by: device, on: id)
                return nil
            }
            closeClaimant(existing, of: peer, movingWaiterTo: id)
            slot.waiter = connections[id]?.waiter
        }
        if let existing = otherConnection(to: peer, besides: id), let old = connections[existing] {
            guard keepsNew(slot, over: old) else {
                connections[id]?.peer = nil
                moveWaiter(from: id, to: existing)
                write(.close(.duplicate), on: id)
                return nil
            }
            if old.hasConnected {
                // The peer dialled again although we were connected: what ran on the old connection ends here.
                // Messages still go to it until the survivor is connected (``SessionPeer/flowConnection``).
                actions.append(.endTransfers(peer, nil))
            }
            connections[existing]?.peer = nil
            if old.hasConnected { connections[existing]?.replacedFor = peer }
            moveWaiter(from: existing, to: id)
            slot.waiter = connections[id]?.waiter
            write(.close(.duplicate), on: existing)
        }
        if slot.role == .responder, connectedCount >= configuration.maximumPeers {
            write(.close(.busy), on: id)
            return nil
        }
        connections[id] = slot
        if device == local.device || trust.isPinned(device) {
            bind(peer, name: shownName(of: hello, device: device), device: device, connection: id)
        }
        return slot
    }

    /// Records `device` as `peer`, reached through connection `id`: from now on the peer is that device, and its
    /// name is the one its authenticated HELLO gave (never an advert's).
    mutating func bind(_ peer: PeerID, name: String, device: DeviceID, connection id: ConnectionID) {
        if peers[peer] == nil { forgetGoneInstances(of: device) }
        var record =
            peers[peer]
            ?? SessionPeer(info: PeerInfo(id: peer, displayName: name, deviceID: device, state: .connecting))
        record.info.deviceID = device
        record.info.deviceIDVerified = true
        record.info.displayName = name
        record.connection = id
        let wasConnecting = record.info.state == .connecting
        record.info.state = .connecting
        peers[peer] = record
        if !wasConnecting { emit(.stateChanged(peer, .connecting)) }
    }

    /// A device comes as a new instance (it started again): its earlier instances that are gone — no connection,
    /// no advert, nothing owed, not being reconnected — are forgotten, so that a paired device cycling instance
    /// tokens grows the peer table by no more than its live instances (`docs/threat-model.md`, "Limits"). Pinned
    /// devices bypass the table's limit (``hasRoom(for:now:)``), so this is their bound.
    mutating func forgetGoneInstances(of device: DeviceID) {
        for (other, record) in peers
        where record.info.deviceID == device && record.info.deviceIDVerified && record.connection == nil
            && record.advert == nil && record.outbox == nil && !reconnecting.contains(other)
            && !connections.values.contains(where: { $0.peer == other || $0.intended == other })
        {
            peers[other] = nil
            autoDialled[other] = nil
        }
    }

    /// Another live connection tied to `peer`.
    func otherConnection(to peer: PeerID, besides id: ConnectionID) -> ConnectionID? {
        if let known = peers[peer]?.connection, known != id, let slot = connections[known], !slot.isClosing,
            slot.peer == peer
        {
            return known
        }
        return connections.keys.sorted().first { key in
            key != id && connections[key]!.peer == peer && !connections[key]!.isClosing
        }
    }

    /// A decision is needed: ask the user, or answer by policy.
    mutating func prompted(_ prompt: PeerHandshake.Prompt, on id: ConnectionID) {
        guard var slot = attach(prompt.peerHello, on: id), let peer = slot.peer, let device = slot.remote else {
            return
        }
        let displayName =
            peers[peer].flatMap { verifiedDevice(of: peer) == device ? $0.info.displayName : nil }
            ?? DisplayText.sanitized(prompt.peerHello.displayName)
        let pairing = prompt.code != nil
        let pinned = !pairing && !prompt.pairingLink
        let namesakes = pinned ? [] : namesakes(of: displayName, excluding: device)
        // A valid pairing link is the user's decision, taken when the link was issued, unless the device behind it
        // calls itself like a device paired before: then the user is asked, shown the clash.
        let automatic =
            (prompt.pairingLink && namesakes.isEmpty)
            || (pairing && configuration.trustsOnFirstUse && namesakes.isEmpty)
            || (pinned && slot.role == .responder && configuration.acceptsPinnedPeersAutomatically)
        slot.phase = .deciding(firstUse: automatic && pairing)
        connections[id] = slot
        if automatic { return write(.decision(accept: true), on: id) }
        nextRequest += 1
        let request = PeerConnectionRequest(
            id: .init(rawValue: nextRequest),
            peer: peer,
            displayName: displayName,
            deviceID: device,
            code: prompt.code.map(PairingCode.init),
            context: prompt.context,
            direction: slot.role == .responder ? .incoming : .outgoing,
            trust: device == local.device ? .verified : trust.record(for: device)?.trust,
            namesakes: namesakes
        )
        requests[request.id] = id
        emit(.connectionRequest(request))
    }

    mutating func decide(_ request: PeerConnectionRequest.ID, accept: Bool) {
        guard let id = requests.removeValue(forKey: request), connections[id] != nil else { return }
        write(.decision(accept: accept), on: id)
    }

    /// Both sides accepted: the connection now speaks for its peer.
    mutating func connected(_ outcome: PeerHandshake.Outcome, on id: ConnectionID) {
        guard connections[id]?.isClosing == false else { return }
        if connections[id]?.peer == nil {
            // A pinned peer we dialled: no prompt came before, so its HELLO is attached now.
            guard attach(outcome.peerHello, on: id) != nil else { return }
        }
        guard var slot = connections[id], let peer = slot.peer, let device = slot.remote else { return }
        if connections.values.contains(where: { $0.replacedFor == peer }) {
            connections[id]?.heldOutcome = outcome
            return
        }
        if let owner = verifiedDevice(of: peer), owner != device {
            // Another device proved this instance while the users decided.
            connections[id]?.peer = nil
            return refuseClaim(of: peer, by: device, on: id)
        }
        if outcome.pairedWithLink, slot.role == .initiator, device != local.device,
            !namesakes(of: DisplayText.sanitized(outcome.peerHello.displayName), excluding: device).isEmpty
        {
            return refuseLookalikeLink(peer, outcome: outcome, on: id)
        }
        let firstUse = slot.acceptedOnFirstUse
        slot.phase = .connected
        for (request, connection) in requests where connection == id { requests[request] = nil }
        let claimed = DisplayText.sanitized(outcome.peerHello.displayName)
        let name = shownName(of: outcome.peerHello, device: device)
        if name != claimed { emit(.peerError(peer, .lookalikeName(claimed, shownAs: name))) }
        if device != local.device {
            let paired = outcome.pairedWithCode || outcome.pairedWithLink
            let level: TrustLevel? = firstUse ? .tofu : paired ? .verified : nil
            actions.append(.rememberTrust(device, level: level, displayName: name, version: outcome.version))
            // The port the peer listens on is known when this side dialled it, or from its advert.
            if slot.role == .initiator {
                actions.append(.rememberAddress(device, connection: id, listeningPort: nil))
            } else if let port = peers[peer]?.advert?.port {
                actions.append(.rememberAddress(device, connection: id, listeningPort: port))
            }
        }
        let waiter = slot.waiter
        slot.waiter = nil
        connections[id] = slot
        if peers[peer]?.connection != id { bind(peer, name: name, device: device, connection: id) }
        actions.append(.startDatagrams(id, peer, device, slot.role, outcome))
        // RESUME and the messages sent again go out before `send` can see the connection.
        resumeDelivery(to: peer, on: id, version: outcome.version)
        openFlow(peer, on: id)
        actions.append(.openRoute(id, peer, peers[peer]!.delivery))
        peers[peer]?.info.state = .connected
        peers[peer]?.connection = id
        if outcome.pairedWithLink { emit(.pairedByLink(peer, device)) }
        emit(.stateChanged(peer, .connected))
        for (parked, owner) in parkedWaiters.sorted(by: { $0.key < $1.key }) where owner == peer {
            parkedWaiters[parked] = nil
            finish(waiter: parked, nil)
        }
        if let waiter { finish(waiter: waiter, nil) }
    }

    mutating func connectionEnded(_ id: ConnectionID, error: PeerSessionError?, now: ContinuousClock.Instant) {
        guard let slot = connections.removeValue(forKey: id) else { return }
        actions.append(.forgetDatagrams(id))
        for (request, connection) in requests where connection == id {
            requests[request] = nil
            emit(.connectionRequestEnded(request, error ?? .cancelled))
        }
        if let waiter = slot.waiter {
            if let peer = slot.intended ?? slot.peer,
                Self.isDuplicate(error) || (Self.isRacedPairing(error) && hasOtherConnection(to: peer, than: id))
            {
                // The other side kept its own connection to us: this `connect` completes when that one does.
                if let other = peers[peer]?.connection, other != id, connections[other]?.hasConnected == true {
                    finish(waiter: waiter, nil)
                } else {
                    parkedWaiters[waiter] = peer
                }
            } else {
                finish(waiter: waiter, error ?? .cancelled)
            }
        }
        if let peer = slot.peer, let (messages, next) = slot.unacknowledged {
            let lost = error != nil && !slot.isClosing && peers[peer]?.connection == id
            keepForRedelivery(
                messages + slot.unsent,
                next: next,
                unsentCount: slot.unsent.count,
                to: peer,
                orReport: !lost
            )
        }
        if let peer = slot.replacedFor { replacedConnectionEnded(slot, peer: peer) }
        guard let peer = slot.peer, peers[peer]?.connection == id else { return settleDial(slot) }
        if slot.hasConnected, Self.isDuplicate(error) {
            // The peer kept its own dial in the tie-break and its HELLO is on the way: messages still go to this
            // connection, and what it refuses goes in the survivor's RESUME (``SessionPeer/flowConnection``).
            actions.append(.schedule(.survivorDeadline(peer, connection: id), after: Self.survivorWait))
        } else {
            closeFlow(peer)
        }
        actions.append(.endTransfers(peer, nil))
        peers[peer]?.connection = nil
        if slot.hasConnected { peers[peer]?.disconnectedAt = now }
        let advertised = peers[peer]?.advert != nil
        let state: PeerState = slot.hasConnected ? .disconnected : (advertised ? .available : .unavailable)
        peers[peer]?.info.state = advertised ? .available : state
        emit(.stateChanged(peer, state))
        if slot.hasConnected, let error { emit(.peerError(peer, error)) }
        if slot.hasConnected, advertised { emit(.stateChanged(peer, .available)) }
        if slot.hasConnected, error != nil, !slot.isClosing, let device = slot.remote {
            droppedDevices.insert(device)
            scheduleReconnect(to: peer, attempt: 0)
        }
    }

    /// How long `send` keeps writing to a connection the peer closed as a duplicate, for its survivor to arrive.
    static let survivorWait = Duration.seconds(10)

    /// `send` writes to `peer` on connection `id` from now on.
    mutating func openFlow(_ peer: PeerID, on id: ConnectionID) {
        peers[peer]?.flowConnection = id
        actions.append(.openFlow(peer, connection: id))
    }

    /// `send` finds `peer` not connected from now on.
    mutating func closeFlow(_ peer: PeerID) {
        guard let id = peers[peer]?.flowConnection else { return }
        peers[peer]?.flowConnection = nil
        actions.append(.closeFlow(peer, connection: id))
    }

    /// A connection the duplicate tie-break replaced has ended. What was sent on it after `connect` returned and is
    /// unacknowledged goes first in the survivor's RESUME, and a survivor both sides accepted meanwhile, held
    /// until now, speaks for the peer from here, numbering above everything the replaced connection used.
    mutating func replacedConnectionEnded(_ slot: SessionConnection, peer: PeerID) {
        if let (messages, next) = slot.unacknowledged {
            keepForRedelivery(
                messages + slot.unsent,
                next: next,
                unsentCount: slot.unsent.count,
                to: peer,
                orReport: false
            )
        }
        guard
            let (survivor, held) = connections.first(where: { $0.value.peer == peer && $0.value.heldOutcome != nil })
                .map({ ($0.key, $0.value.heldOutcome!) })
        else { return }
        connections[survivor]?.heldOutcome = nil
        connected(held, on: survivor)
    }

    /// A dial that ended before its peer was bound (a first contact that failed): the peer it was meant for is
    /// no longer being connected to, unless another connection still is.
    mutating func settleDial(_ slot: SessionConnection) {
        guard let peer = slot.intended, let record = peers[peer], record.connection == nil,
            record.info.state == .connecting,
            !connections.values.contains(where: { $0.intended == peer || $0.peer == peer })
        else { return }
        let state: PeerState = record.advert != nil ? .available : .unavailable
        peers[peer]?.info.state = state
        emit(.stateChanged(peer, state))
    }

    func hasOtherConnection(to peer: PeerID, than id: ConnectionID) -> Bool {
        connections.contains { $0.key != id && ($0.value.peer == peer || $0.value.intended == peer) }
    }

    /// A `connect` waiting on a connection that loses the duplicate tie-break waits on the survivor instead.
    mutating func moveWaiter(from old: ConnectionID, to new: ConnectionID) {
        guard let waiter = connections[old]?.waiter else { return }
        connections[old]?.waiter = nil
        if connections[new]?.hasConnected == true {
            finish(waiter: waiter, nil)
        } else if connections[new]?.waiter == nil {
            connections[new]?.waiter = waiter
        } else {
            finish(waiter: waiter, .cancelled)
        }
    }

    /// Two connections between one pair of instances. Dialled from both sides at once: the connection dialled by
    /// the lower (device ID, instance) survives, so both sides keep the same one (`docs/security.md` §3.4); the
    /// rule holds even when one side has already finished its handshake: deciding by local progress would let
    /// each side keep a different one. Dialled twice from the same side: the peer is starting over (it closed
    /// or lost the earlier connection, and this side has not seen that yet), so the new one survives — when it
    /// comes from the same device; another device claiming the instance is refused.
    func keepsNew(_ new: SessionConnection, over old: SessionConnection) -> Bool {
        Self.keepsNew(
            new.role,
            from: new.remote,
            over: old.role,
            from: old.remote,
            mine: (local.device, local.instance.rawValue),
            theirs: new.peer?.rawValue ?? ""
        )
    }

    /// The tie-break of ``keepsNew(_:over:)`` on its inputs alone.
    static func keepsNew(
        _ newRole: PeerRole,
        from newRemote: DeviceID?,
        over oldRole: PeerRole,
        from oldRemote: DeviceID?,
        mine: (device: DeviceID, instance: String),
        theirs instance: String
    ) -> Bool {
        guard let remote = newRemote else { return false }
        guard oldRole != newRole else { return oldRemote == remote }
        let iAmLower = mine.device < remote || (mine.device == remote && mine.instance < instance)
        return iAmLower ? newRole == .initiator : newRole == .responder
    }

    static func isDuplicate(_ error: PeerSessionError?) -> Bool { isPeer(error, closingFor: .duplicate) }

    /// True when `error` is the peer closing or refusing the connection for `reason`.
    static func isPeer(_ error: PeerSessionError?, closingFor reason: PeerCloseReason) -> Bool {
        error == .connection(.wire(.closedByPeer(reason: reason)))
            || error == .connection(.wire(.pairingRejected(reason: reason)))
    }

    /// A dial refused with "pairing required" while another connection to the same peer is under way: both
    /// sides dialled at first contact, and the other connection finished on this side (so this dial skipped the
    /// code) but not yet on the peer's. Not a refusal of the peer: the `connect` waits for the other connection.
    static func isRacedPairing(_ error: PeerSessionError?) -> Bool { isPeer(error, closingFor: .pairingRequired) }
}
