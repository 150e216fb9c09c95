import HuddleTransport
import HuddleWire

/// Who a connection may speak for: the name shown for a device, lookalike names, and an instance two devices
/// claim (`docs/threat-model.md`, "A peer is its device" and "Names").
extension PeerSessionStateMachine {
    /// The name to show for `device`: the one its HELLO gives, unless a paired device changed its name to one
    /// that looks like another paired device's ("B\u{200B}ob" next to Bob): then the name it was paired or last
    /// seen under (`docs/threat-model.md`, "Names").
    func shownName(of hello: PeerHello, device: DeviceID) -> String {
        let claimed = DisplayText.sanitized(hello.displayName)
        guard device != local.device, let stored = trust.record(for: device)?.displayName,
            DisplayText.sanitized(stored) != claimed, !namesakes(of: claimed, excluding: device).isEmpty
        else { return claimed }
        return DisplayText.sanitized(stored)
    }

    /// The pinned devices other than `device` whose names look like `name`, in the trust store's order.
    func namesakes(of name: String, excluding device: DeviceID) -> [DeviceID] {
        let key = DisplayText.lookalikeKey(name)
        guard !key.isEmpty else { return [] }
        return trust.records.compactMap { record in
            guard record.trust != .blocked, record.deviceID != device.description,
                DisplayText.lookalikeKey(record.displayName) == key
            else { return nil }
            return try? DeviceID(record.deviceID)
        }
    }

    /// Whether `device` has the better claim to `peer`: it is the device TLS proved for the instance earlier in
    /// this session, or, when none did yet, a paired one.
    func owns(_ peer: PeerID, _ device: DeviceID) -> Bool {
        if let verified = verifiedDevice(of: peer) { return verified == device }
        return device == local.device || trust.isPinned(device)
    }

    /// The owner of `peer` connected while a device that is not paired claimed the instance and waited for the
    /// user (`docs/threat-model.md`, "A peer is its device"): the claimant's connection `id` is closed with
    /// `instanceTaken`, its question withdrawn, and a `connect` waiting on it waits on the owner's connection.
    mutating func closeClaimant(_ id: ConnectionID, of peer: PeerID, movingWaiterTo owner: ConnectionID) {
        guard let claimant = connections[id]?.remote else { return }
        connections[id]?.peer = nil
        for (request, connection) in requests.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where connection == id {
            requests[request] = nil
            emit(.connectionRequestEnded(request, .instanceClaimed(peer, by: claimant)))
        }
        moveWaiter(from: id, to: owner)
        refuseClaim(of: peer, by: claimant, on: id)
    }

    /// `device` claims an instance that is another device's: refused, and both sides are told why.
    mutating func refuseClaim(of peer: PeerID, by device: DeviceID, on id: ConnectionID) {
        write(.close(.instanceTaken), on: id)
        emit(.peerError(peer, .instanceClaimed(peer, by: device)))
    }

    /// This side dialled with a pairing link, and the device behind it calls itself like a device paired before
    /// ("Bob" next to the paired Bob): whoever photographed the link, or sent a link for "the office printer", is
    /// not pinned under that name (`docs/threat-model.md`, "Pairing links"). The connection is closed and the
    /// `connect` fails saying why; nothing is remembered.
    mutating func refuseLookalikeLink(_ peer: PeerID, outcome: PeerHandshake.Outcome, on id: ConnectionID) {
        let name = DisplayText.sanitized(outcome.peerHello.displayName)
        let waiter = connections[id]?.waiter
        connections[id]?.waiter = nil
        connections[id]?.peer = nil
        write(.close(.refused), on: id)
        let error = PeerSessionError.lookalikeLink(peer, name: name)
        if let waiter { finish(waiter: waiter, error) } else { emit(.peerError(peer, error)) }
    }
}
