import HuddleTransport
import HuddleWire
import Logging
import NIOCore
import Synchronization

extension PeerSession {
    func handle(_ item: Inbox) async {
        switch item {
        case .accepted(let id, let channel, let route):
            guard !stopped else {
                channel.close(promise: nil)
                return
            }
            var slot = ConnectionSlot(id: id, role: .responder, channel: channel)
            slot.route = route
            connections[id] = slot
        case .dialed(let id, .success(let channel)):
            guard connections[id] != nil, !stopped else {
                channel.close(promise: nil)
                return
            }
            connections[id]?.channel = channel
        case .dialed(let id, .failure(let error)):
            connectionEnded(id, error: error)
        case .connection(let id, let event):
            handle(event, on: id)
        case .message(let id, let buffer, let sequence):
            receivedMessage(buffer, sequence: sequence, on: id)
        case .unsent(let buffer, let peer, let channel):
            unsent(buffer, to: peer, channel: channel)
        case .directory(.found(let advert)):
            found(advert)
        case .datagram(let bytes, let source):
            receivedDatagram(bytes, from: source)
        case .directory(.lost(let peer)):
            guard var record = peers[peer] else { return }
            record.advert = nil
            if record.connection == nil { record.info.state = .unavailable }
            peers[peer] = record
            if record.connection == nil { emit(.stateChanged(peer, .unavailable)) }
        }
    }

    func found(_ advert: PeerAdvert) {
        guard advert.peer != peerID, hasRoom(for: advert) else { return }
        let name = DisplayText.sanitized(advert.displayName)
        var record =
            peers[advert.peer]
            ?? PeerRecord(
                info: PeerInfo(id: advert.peer, displayName: name, deviceID: advert.deviceID, state: .available)
            )
        let wasAvailable = record.advert != nil
        if record.info.deviceIDVerified {
            // An advert proves nothing: it never changes a verified peer's key or name, nor where a connected
            // peer is reached (`docs/threat-model.md`, "Adverts are hints"). Its addresses are taken only while
            // the peer is away, and the next dial still expects the verified key.
            guard advert.deviceID == record.info.deviceID else {
                ignoredAdverts += 1
                configuration.logger.notice(
                    "ignored an advert naming another key for a verified peer",
                    metadata: ["peer": "\(advert.peer)", "advertised": "\(advert.deviceID)"]
                )
                return
            }
            var kept = advert
            kept.displayName = record.info.displayName
            if record.connection != nil, let current = record.advert { kept.addresses = current.addresses }
            record.advert = kept
        } else {
            record.advert = advert
            record.info.displayName = name
            record.info.deviceID = advert.deviceID
        }
        if record.connection == nil { record.info.state = .available }
        peers[advert.peer] = record
        emit(.peerFound(record.info))
        if !wasAvailable && record.connection == nil { emit(.stateChanged(advert.peer, .available)) }
        if record.connection == nil {
            reconnectIfLost(advert)
            connectIfFound(advert.peer)
        }
    }

    /// Dials a peer just found, when the configuration asks for it and this side dials (``DialOrder``): once per
    /// instance, and not while a connection to it exists or is being made.
    func connectIfFound(_ peer: PeerID) {
        guard configuration.connectsToFoundPeers, mode.browses, !stopped, let record = peers[peer],
            record.connection == nil, let device = record.info.deviceID,
            DialOrder.localDials(local: (identity.deviceID, peerID), remote: (device, peer)),
            !connections.values.contains(where: { $0.intended == peer || $0.peer == peer }),
            autoDialled.insert(peer).inserted
        else { return }
        track { [weak self] in
            do {
                try await self?.connect(to: peer, timeout: .seconds(120))
            } catch let error as PeerSessionError {
                await self?.emit(.peerError(peer, .autoConnectFailed(error)))
            } catch {
                // Only cancellation: the session is stopping.
            }
        }
    }

    /// Whether the peer table may take `advert` (`docs/security.md` §5 C8): known peers and pinned devices always;
    /// others while the table is below its limit, after forgetting a peer that is gone if need be. A peer connected
    /// less than the redelivery window ago is not gone: it may still send again messages that its record says
    /// arrived.
    func hasRoom(for advert: PeerAdvert) -> Bool {
        guard peers[advert.peer] == nil, peers.count >= configuration.maximumKnownPeers else { return true }
        let now = ContinuousClock.now
        let gone = peers.first { id, record in
            record.advert == nil && record.connection == nil && record.outbox == nil && !reconnecting.contains(id)
                && record.disconnectedAt.map { $0.duration(to: now) >= configuration.redeliveryWindow } ?? true
        }
        if let gone {
            peers[gone.key] = nil
            return true
        }
        if advert.deviceID == identity.deviceID || trustStore.isPinned(advert.deviceID) { return true }
        ignoredAdverts += 1
        configuration.logger.notice(
            "ignored an advert: the peer table is full",
            metadata: ["peer": "\(advert.peer)", "limit": "\(configuration.maximumKnownPeers)"]
        )
        return false
    }

    func handle(_ event: PeerConnectionEvent, on id: Int) {
        guard connections[id] != nil else {
            if case .message(let buffer) = event { flow.consumed(buffer.readableBytes) }
            if case .resource(let buffer) = event { flow.consumedResource(buffer.readableBytes) }
            return
        }
        switch event {
        case .authenticated(let device):
            connections[id]?.remote = device
        case .prompt(let prompt):
            prompted(prompt, on: id)
        case .connected(let outcome):
            connected(outcome, on: id)
        case .message(let buffer):
            // Messages come through `Inbox.message`, numbered; this is only reached by a caller bypassing it.
            flow.consumed(buffer.readableBytes)
        case .resumed:
            break
        case .unacknowledged(let messages, let next):
            sequenceFloor = max(sequenceFloor, next)
            connections[id]?.unacknowledged = (messages, next)
        case .resource(let buffer):
            guard let peer = connections[id]?.peer else { return flow.consumedResource(buffer.readableBytes) }
            // A chunk of a file being written counts until its writer has written it; the rest count until now.
            if !receivedResource(buffer, from: peer) { flow.consumedResource(buffer.readableBytes) }
        case .closed(let error):
            connectionEnded(id, error: error.map { .connection($0) })
        }
    }

    /// The peer's HELLO is known: tie the connection to the peer it names, refusing ourselves, duplicates that
    /// lose the tie-break, and peers over the limit. Returns the updated slot, or `nil` when the connection was
    /// refused.
    ///
    /// A peer is the device TLS proved, not the instance its HELLO names (`docs/threat-model.md`, "A peer is its
    /// device"): an instance bound to another verified device is refused with `instanceTaken`, and a connection
    /// from one device never displaces another device's. A device that is not pinned changes nothing in the peer
    /// table until both sides accepted (``bind(_:hello:device:connection:)`` runs then): before that its
    /// connection only knows the peer it claims.
    func attach(_ hello: PeerHello, on id: Int) -> ConnectionSlot? {
        guard var slot = connections[id], let device = slot.remote else { return nil }
        let peer = PeerID(rawValue: hello.instance)
        if peer == peerID {
            slot.channel?.writeAndFlush(PeerOutbound.close(.refused), promise: nil)
            return nil
        }
        if let owner = verifiedDevice(of: peer), owner != device {
            refuseClaim(of: peer, by: device, on: slot)
            return nil
        }
        slot.peer = peer
        connections[id] = slot
        if let existing = otherConnection(to: peer, besides: id), let old = connections[existing] {
            if let other = old.remote, other != device {
                connections[id]?.peer = nil
                refuseClaim(of: peer, by: device, on: slot)
                return nil
            }
            guard keepsNew(slot, over: existing) else {
                connections[id]?.peer = nil
                moveWaiter(from: id, to: existing)
                slot.channel?.writeAndFlush(PeerOutbound.close(.duplicate), promise: nil)
                return nil
            }
            if old.connected {
                // The peer dialled again although we were connected: what ran on the old connection ends here.
                flow.disconnected(peer, channel: old.channel)
                transfersEnded(with: peer)
            }
            connections[existing]?.peer = nil
            moveWaiter(from: existing, to: id)
            slot.waiter = connections[id]?.waiter
            old.channel?.writeAndFlush(PeerOutbound.close(.duplicate), promise: nil)
        }
        if slot.role == .responder, connectedCount >= configuration.maximumPeers {
            slot.channel?.writeAndFlush(PeerOutbound.close(.busy), promise: nil)
            return nil
        }
        connections[id] = slot
        if device == identity.deviceID || trustStore.isPinned(device) {
            bind(peer, hello: hello, device: device, connection: id)
        }
        return slot
    }

    /// Records `device` as `peer`, reached through connection `id`: from now on the peer is that device, and its
    /// name is the one its authenticated HELLO gave (never an advert's).
    func bind(_ peer: PeerID, hello: PeerHello, device: DeviceID, connection id: Int) {
        let name = shownName(of: hello, device: device)
        var record =
            peers[peer]
            ?? PeerRecord(info: PeerInfo(id: peer, displayName: name, deviceID: device, state: .connecting))
        record.info.deviceID = device
        record.info.deviceIDVerified = true
        record.info.displayName = name
        record.connection = id
        let wasConnecting = record.info.state == .connecting
        record.info.state = .connecting
        peers[peer] = record
        if !wasConnecting { emit(.stateChanged(peer, .connecting)) }
    }

    /// The name to show for `device`: the one its HELLO gives, unless a paired device changed its name to one
    /// that looks like another paired device's ("B\u{200B}ob" next to Bob): then the name it was paired or last
    /// seen under (`docs/threat-model.md`, "Names").
    func shownName(of hello: PeerHello, device: DeviceID) -> String {
        let claimed = DisplayText.sanitized(hello.displayName)
        guard device != identity.deviceID, let stored = trustStore.record(for: device)?.displayName,
            DisplayText.sanitized(stored) != claimed, !namesakes(of: claimed, excluding: device).isEmpty
        else { return claimed }
        return DisplayText.sanitized(stored)
    }

    /// The device TLS proved for `peer` on an earlier connection, if any.
    func verifiedDevice(of peer: PeerID) -> DeviceID? {
        guard let info = peers[peer]?.info, info.deviceIDVerified else { return nil }
        return info.deviceID
    }

    /// Another live connection tied to `peer`.
    func otherConnection(to peer: PeerID, besides id: Int) -> Int? {
        if let known = peers[peer]?.connection, known != id, let slot = connections[known], !slot.closing,
            slot.peer == peer
        {
            return known
        }
        return connections.first { $0.key != id && $0.value.peer == peer && !$0.value.closing }?.key
    }

    /// `device` claims an instance that is another device's: refused, and both sides are told why.
    func refuseClaim(of peer: PeerID, by device: DeviceID, on slot: ConnectionSlot) {
        slot.channel?.writeAndFlush(PeerOutbound.close(.instanceTaken), promise: nil)
        emit(.peerError(peer, .instanceClaimed(peer, by: device)))
    }

    /// A decision is needed: ask the user, or answer by policy.
    func prompted(_ prompt: PeerHandshake.Prompt, on id: Int) {
        guard var slot = attach(prompt.peerHello, on: id), let peer = slot.peer, let device = slot.remote else {
            return
        }
        let displayName =
            peers[peer].flatMap { verifiedDevice(of: peer) == device ? $0.info.displayName : nil }
            ?? DisplayText.sanitized(prompt.peerHello.displayName)
        slot.pairing = prompt.code != nil
        let namesakes = slot.pairing ? namesakes(of: displayName, excluding: device) : []
        let automatic =
            (slot.pairing && configuration.trustsOnFirstUse && namesakes.isEmpty)
            || (!slot.pairing && slot.role == .responder && configuration.acceptsPinnedPeersAutomatically)
        if automatic {
            slot.acceptedOnFirstUse = slot.pairing
            connections[id] = slot
            slot.channel?.writeAndFlush(PeerOutbound.decision(accept: true), promise: nil)
            return
        }
        nextRequest += 1
        let request = PeerConnectionRequest(
            id: .init(rawValue: nextRequest),
            peer: peer,
            displayName: displayName,
            deviceID: device,
            code: prompt.code.map(PairingCode.init),
            context: prompt.context,
            direction: slot.role == .responder ? .incoming : .outgoing,
            trust: device == identity.deviceID ? .verified : trustStore.record(for: device)?.trust,
            namesakes: namesakes
        )
        slot.request = request.id
        requests[request.id] = id
        connections[id] = slot
        emit(.connectionRequest(request))
    }

    /// The pinned devices other than `device` whose names look like `name`, in the trust store's order.
    func namesakes(of name: String, excluding device: DeviceID) -> [DeviceID] {
        let key = DisplayText.lookalikeKey(name)
        guard !key.isEmpty else { return [] }
        return trustStore.records.compactMap { record in
            guard record.trust != .blocked, record.deviceID != device.description,
                DisplayText.lookalikeKey(record.displayName) == key
            else { return nil }
            return try? DeviceID(record.deviceID)
        }
    }

    func connected(_ outcome: PeerHandshake.Outcome, on id: Int) {
        if connections[id]?.peer == nil {
            // A pinned peer we dialled: no prompt came before, so its HELLO is attached now.
            guard attach(outcome.peerHello, on: id) != nil else { return }
        }
        guard var slot = connections[id], let peer = slot.peer, let device = slot.remote else { return }
        if let owner = verifiedDevice(of: peer), owner != device {
            // Another device proved this instance while the users decided.
            connections[id]?.peer = nil
            refuseClaim(of: peer, by: device, on: slot)
            return
        }
        slot.connected = true
        if let request = slot.request { requests[request] = nil }
        slot.request = nil
        let claimed = DisplayText.sanitized(outcome.peerHello.displayName)
        let name = shownName(of: outcome.peerHello, device: device)
        if name != claimed { emit(.peerError(peer, .lookalikeName(claimed, shownAs: name))) }
        if device != identity.deviceID {
            do {
                if outcome.pairedWithCode || slot.acceptedOnFirstUse {
                    try trustStore.set(
                        slot.acceptedOnFirstUse ? .tofu : .verified,
                        for: device,
                        displayName: name,
                        version: outcome.version
                    )
                } else {
                    try trustStore.touch(device, displayName: name, version: outcome.version)
                }
            } catch {
                // The connection stands (both sides accepted); only what is remembered for next time is lost.
                configuration.logger.error(
                    "could not write the trust store",
                    metadata: ["device": "\(device)", "error": "\(error)"]
                )
            }
        }
        connections[id] = slot
        if peers[peer]?.connection != id { bind(peer, hello: outcome.peerHello, device: device, connection: id) }
        startDatagrams(on: id, outcome: outcome)
        // RESUME and the messages sent again go out before `send` can see the channel.
        if let channel = slot.channel { resumeDelivery(to: peer, on: channel) }
        if let channel = slot.channel { flow.connected(peer, channel: channel) }
        slot.route.open(to: peer, delivery: peers[peer]!.delivery)
        peers[peer]?.info.state = .connected
        peers[peer]?.connection = id
        emit(.stateChanged(peer, .connected))
        for (key, waiter) in duplicateWaiters where waiter.peer == peer {
            duplicateWaiters[key] = nil
            waiter.continuation.resume()
        }
        slot.waiter?.resume()
        connections[id]?.waiter = nil
    }

    func connectionEnded(_ id: Int, error: PeerSessionError?) {
        guard let slot = connections.removeValue(forKey: id) else { return }
        if let link = slot.datagram {
            datagramRoutes[link.opener.connectionID] = nil
            datagramFilter.forget(link.opener.connectionID)
        }
        if let request = slot.request {
            requests[request] = nil
            emit(.connectionRequestEnded(request, error ?? .cancelled))
        }
        if let waiter = slot.waiter, let peer = slot.intended ?? slot.peer,
            Self.isDuplicate(error) || (Self.isRacedPairing(error) && hasOtherConnection(to: peer, than: id))
        {
            // The other side kept its own connection to us: this `connect` completes when that one does.
            if let other = peers[peer]?.connection, other != id, connections[other]?.connected == true {
                waiter.resume()
            } else {
                duplicateWaiters[id] = (peer, waiter)
            }
        } else {
            slot.waiter?.resume(throwing: error ?? PeerSessionError.cancelled)
        }
        if let peer = slot.peer, let (messages, next) = slot.unacknowledged {
            let lost = error != nil && !slot.closing && peers[peer]?.connection == id
            keepForRedelivery(
                messages + slot.unsent,
                next: next,
                unsentCount: slot.unsent.count,
                to: peer,
                orReport: !lost
            )
        }
        guard let peer = slot.peer, peers[peer]?.connection == id else { return settleDial(slot) }
        flow.disconnected(peer, channel: slot.channel)
        transfersEnded(with: peer)
        peers[peer]?.connection = nil
        if slot.connected { peers[peer]?.disconnectedAt = .now }
        let advertised = peers[peer]?.advert != nil
        let state: PeerState = slot.connected ? .disconnected : (advertised ? .available : .unavailable)
        peers[peer]?.info.state = advertised ? .available : state
        emit(.stateChanged(peer, state))
        if slot.connected, let error { emit(.peerError(peer, error)) }
        if slot.connected, advertised { emit(.stateChanged(peer, .available)) }
        if slot.connected, error != nil, !slot.closing, let device = slot.remote {
            droppedDevices.insert(device)
            scheduleReconnect(to: peer, attempt: 0)
        }
    }

    /// A dial that ended before its peer was bound (a first contact that failed): the peer it was meant for is
    /// no longer being connected to, unless another connection still is.
    func settleDial(_ slot: ConnectionSlot) {
        guard let peer = slot.intended, let record = peers[peer], record.connection == nil,
            record.info.state == .connecting,
            !connections.values.contains(where: { $0.intended == peer || $0.peer == peer })
        else { return }
        let state: PeerState = record.advert != nil ? .available : .unavailable
        peers[peer]?.info.state = state
        emit(.stateChanged(peer, state))
    }

    static func isDuplicate(_ error: PeerSessionError?) -> Bool {
        switch error {
        case .connection(.wire(.closedByPeer(reason: .duplicate))),
            .connection(.wire(.pairingRejected(reason: .duplicate))):
            true
        default:
            false
        }
    }

    /// A dial refused with "pairing required" while another connection to the same peer is under way: both
    /// sides dialled at first contact, and the other connection finished on this side (so this dial skipped the
    /// code) but not yet on the peer's. Not a refusal of the peer: the `connect` waits for the other connection.
    static func isRacedPairing(_ error: PeerSessionError?) -> Bool {
        switch error {
        case .connection(.wire(.pairingRejected(reason: .pairingRequired))),
            .connection(.wire(.closedByPeer(reason: .pairingRequired))):
            true
        default:
            false
        }
    }

    func hasOtherConnection(to peer: PeerID, than id: Int) -> Bool {
        connections.contains { $0.key != id && ($0.value.peer == peer || $0.value.intended == peer) }
    }

    /// A `connect` waiting on a connection that loses the duplicate tie-break waits on the survivor instead.
    func moveWaiter(from old: Int, to new: Int) {
        guard let waiter = connections[old]?.waiter else { return }
        connections[old]?.waiter = nil
        if connections[new]?.connected == true {
            waiter.resume()
        } else if connections[new]?.waiter == nil {
            connections[new]?.waiter = waiter
        } else {
            waiter.resume(throwing: PeerSessionError.cancelled)
        }
    }

    var connectedCount: Int { connections.values.count { $0.connected } }

    /// Two connections between one pair of instances. Dialled from both sides at once: the connection dialled by
    /// the lower (device ID, instance) survives, so both sides keep the same one (`docs/security.md` §3.4); the
    /// rule holds even when one side has already finished its handshake: deciding by local progress would let
    /// each side keep a different one. Dialled twice from the same side: the peer is starting over (it closed
    /// or lost the earlier connection, and this side has not seen that yet), so the new one survives — when it
    /// comes from the same device; another device claiming the instance is refused.
    func keepsNew(_ new: ConnectionSlot, over existing: Int) -> Bool {
        guard let old = connections[existing] else { return true }
        return Self.keepsNew(
            new.role,
            from: new.remote,
            over: old.role,
            from: old.remote,
            mine: (identity.deviceID, peerID.rawValue),
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
}
