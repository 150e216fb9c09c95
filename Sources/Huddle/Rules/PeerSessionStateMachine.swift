import HuddleTransport
import HuddleWire
import Logging
import NIOCore

/// The rules of a ``PeerSession``, without I/O: the peer table, the connections and their phases, connection
/// requests, the simultaneous-dial tie-break, the reconnect schedule and the redelivery outbox.
///
/// Inputs go in with the time they happened (``handle(_:now:)``); actions come out, and the actor carries them
/// out in order. The clock and the randomness are the caller's, so every rule is tested without sockets or
/// sleeps (`ConnectionRulesTests`, `ReconnectAndRedeliveryRulesTests`). See `docs/design.md`, "The session state machine".
struct PeerSessionStateMachine {
    /// This session as its rules see it.
    struct Local {
        var device: DeviceID
        var instance: PeerID
        var mode: PeerSessionMode
    }

    let local: Local
    let configuration: PeerSessionConfiguration
    /// Read for decisions; written only through ``Action/rememberTrust(_:level:displayName:version:)``.
    let trust: TrustStore
    var generator: any RandomNumberGenerator

    var peers: [PeerID: SessionPeer] = [:]
    var connections: [ConnectionID: SessionConnection] = [:]
    /// Requests waiting for the user, and their connections.
    var requests: [PeerConnectionRequest.ID: ConnectionID] = [:]
    var nextRequest = 0
    /// `connect` calls whose connection lost the duplicate tie-break on the other side, waiting for the survivor.
    var parkedWaiters: [ConnectionID: PeerID] = [:]
    /// Peers whose connection dropped and is being made again.
    var reconnecting: Set<PeerID> = []
    /// Pinned devices whose connection dropped; if one comes back under a new instance, it is connected.
    var droppedDevices: Set<DeviceID> = []
    /// Instances dialled because they were found, with the address dialled: once each per address.
    var autoDialled: [PeerID: SocketAddress] = [:]
    /// Above every sequence number a closed connection used: where a new peer connection's messages start.
    var sequenceFloor: UInt64 = 0
    var outboxGeneration = 0
    /// Adverts ignored because the peer table was full or they named another key for a verified peer.
    var ignoredAdverts = 0
    var stopped = false
    /// What the current input has asked for so far.
    var actions: [Action] = []

    init(
        local: Local,
        configuration: PeerSessionConfiguration,
        trust: TrustStore,
        generator: any RandomNumberGenerator = SystemRandomNumberGenerator()
    ) {
        self.local = local
        self.configuration = configuration
        self.trust = trust
        self.generator = generator
    }

    /// Applies `input`, which happened at `now`, and returns what to do about it.
    mutating func handle(_ input: Input, now: ContinuousClock.Instant) -> [Action] {
        switch input {
        case .found(let advert): found(advert, now: now)
        case .lost(let peer): lost(peer)
        case .accepted(let id): accepted(id)
        case .dialStarted(let id, let peer, let timeout): dialStarted(id, peer: peer, timeout: timeout)
        case .opened(let id): opened(id)
        case .authenticated(let id, let device): connections[id]?.remote = device
        case .prompted(let id, let prompt): prompted(prompt, on: id)
        case .connected(let id, let outcome): connected(outcome, on: id)
        case .unacknowledged(let id, let messages, let next):
            guard connections[id] != nil else { break }
            sequenceFloor = max(sequenceFloor, next)
            connections[id]?.unacknowledged = (messages, next)
        case .closed(let id, let error): connectionEnded(id, error: error, now: now)
        case .unsent(let message, let peer, let id): unsent(message, to: peer, connection: id)
        case .decide(let request, let accept): decide(request, accept: accept)
        case .cancelDial(let id): cancelDial(id, now: now)
        case .cancelConnect(let peer): cancelConnect(to: peer, now: now)
        case .disconnect(let peer): disconnect(peer)
        case .disconnectAll:
            for peer in peers.keys.sorted() where peers[peer]?.connection != nil { disconnect(peer) }
        case .trustChanged: trustChanged()
        case .connectEnded(let peer, let reason, let failure):
            connectEnded(peer, reason: reason, failure: failure)
        case .timer(.reconnect(let peer, let attempt)): reconnectDue(peer, attempt: attempt)
        case .timer(.connectDeadline(let id, let peer)): connectTimedOut(id, peer: peer)
        case .timer(.redeliveryWindow(let peer, let generation)):
            redeliveryWindowPassed(for: peer, generation: generation)
        case .timer(.survivorDeadline(let peer, let id)):
            if peers[peer]?.flowConnection == id { closeFlow(peer) }
        case .stop: stop()
        }
        let result = actions
        actions = []
        return result
    }

    mutating func emit(_ event: PeerSessionEvent) { actions.append(.emit(event)) }

    /// Counts an advert left unused (``ignoredAdverts``) and logs why.
    mutating func ignoreAdvert(_ why: Logger.Message, _ metadata: Logger.Metadata) {
        ignoredAdverts += 1
        actions.append(.log(.notice, why, metadata))
    }

    mutating func write(_ outbound: PeerOutbound, on id: ConnectionID) { actions.append(.write(id, outbound)) }

    mutating func finish(waiter: ConnectionID, _ error: PeerSessionError?) {
        actions.append(.finishConnect(waiter, error))
    }

    // MARK: - Queries

    /// The peers in `state`.
    func peers(in state: PeerState) -> [PeerID] {
        peers.values.filter { $0.info.state == state }.map(\.info.id).sorted()
    }

    func info(for peer: PeerID) -> PeerInfo? { peers[peer]?.info }

    /// A peer of `device` the session can dial now (one with an address), if any.
    func dialablePeer(of device: DeviceID) -> PeerID? {
        peers.values.filter { $0.info.deviceID == device && $0.advert?.addresses.isEmpty == false }
            .map(\.info.id).sorted().first
    }

    /// The first address of `peer`'s advert.
    func address(of peer: PeerID) -> SocketAddress? { peers[peer]?.advert?.addresses.first }

    /// Whether a peer of `device` is connected or found nearby (advertised, not only at a direct address).
    func isSeen(_ device: DeviceID) -> Bool {
        peers.values.contains { record in
            record.info.deviceID == device
                && (record.info.state == .connected || record.advert.map { !$0.isDirect } == true)
        }
    }

    /// Whether `peer` is connected, and when its last connection ended (``DirectAddressSchedule``).
    func directStatus(of peer: PeerID) -> DirectAddressSchedule.PeerStatus {
        .init(connected: peers[peer]?.info.state == .connected, disconnectedAt: peers[peer]?.disconnectedAt)
    }

    /// The connection that speaks for `peer`.
    func connection(of peer: PeerID) -> ConnectionID? { peers[peer]?.connection }

    /// The peer connection `id` speaks for, if any.
    func peer(on id: ConnectionID) -> PeerID? { connections[id]?.peer }

    func hasConnection(_ id: ConnectionID) -> Bool { connections[id] != nil }

    /// The device TLS proved for `peer` on an earlier connection, if any.
    func verifiedDevice(of peer: PeerID) -> DeviceID? {
        guard let info = peers[peer]?.info, info.deviceIDVerified else { return nil }
        return info.deviceID
    }

    /// The peer whose message numbered `sequence` arrived on connection `id`, when it is new (it then counts as
    /// handed on); nil for a repeat or a connection that no longer speaks for a peer.
    func deliverable(_ sequence: UInt64, on id: ConnectionID) -> PeerID? {
        // A connection the duplicate tie-break replaced still carries what the peer sent before it heard: its
        // handler has acknowledged those messages, so dropping them would lose them. The numbers keep duplicates
        // out.
        guard let slot = connections[id], let peer = slot.peer ?? slot.replacedFor,
            let delivery = peers[peer]?.delivery, delivery.admit(sequence)
        else { return nil }
        return peer
    }

    var connectedCount: Int { connections.values.count { $0.hasConnected } }

    // MARK: - The directory

    mutating func found(_ advert: PeerAdvert, now: ContinuousClock.Instant) {
        guard advert.peer != local.instance, hasRoom(for: advert, now: now) else { return }
        let name = DisplayText.sanitized(advert.displayName)
        var record =
            peers[advert.peer]
            ?? SessionPeer(
                info: PeerInfo(id: advert.peer, displayName: name, deviceID: advert.deviceID, state: .available)
            )
        let wasAvailable = record.advert != nil
        if record.info.deviceIDVerified {
            // An advert proves nothing: it never changes a verified peer's key or name, nor where a connected
            // peer is reached (`docs/threat-model.md`, "Adverts are hints"). Its addresses are taken only while
            // the peer is away, and the next dial still expects the verified key.
            guard advert.deviceID == record.info.deviceID else {
                ignoreAdvert(
                    "ignored an advert naming another key for a verified peer",
                    ["peer": "\(advert.peer)", "advertised": "\(advert.deviceID)"]
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
        record.info.lobby = advert.lobby
        record.info.dialledAt = advert.isDirect ? advert.addresses.first.flatMap(Self.addressText) : nil
        peers[advert.peer] = record
        emit(.peerFound(record.info))
        if !wasAvailable && record.connection == nil { emit(.stateChanged(advert.peer, .available)) }
        if record.connection == nil {
            reconnectIfLost(advert)
            connectIfFound(advert.peer)
        }
    }

    /// `host:port` of a socket address, as ``PeerAddress`` shows it.
    static func addressText(_ address: SocketAddress) -> String? {
        guard let host = address.ipAddress, let port = address.port else { return nil }
        return PeerAddress(host: host, port: port).description
    }

    mutating func lost(_ peer: PeerID) {
        guard var record = peers[peer] else { return }
        record.advert = nil
        if record.connection == nil { record.info.state = .unavailable }
        peers[peer] = record
        if record.connection == nil { emit(.stateChanged(peer, .unavailable)) }
    }

    /// Whether this side is the one to dial `record`'s peer: the one ``DialOrder`` picks, or this side alone when
    /// it found the peer at a direct address (the peer may not be able to find this side).
    func dials(_ record: SessionPeer, device: DeviceID) -> Bool {
        record.advert?.isDirect == true
            || DialOrder.localDials(local: (local.device, local.instance), remote: (device, record.info.id))
    }

    /// Dials a peer just found, when the configuration asks for it and this side dials (``dials(_:device:)``): once per
    /// instance and address, and not while a connection to it exists or is being made. A peer found again at
    /// another address is dialled there: the first resolution of an advert can be stale (RFC 6762 §10.2: its
    /// SRV named a host name the peer then lost to another host, maybe to this one, `docs/mdns.md` B10).
    mutating func connectIfFound(_ peer: PeerID) {
        guard configuration.connectsToFoundPeers, local.mode.browses, !stopped, let record = peers[peer],
            record.connection == nil, let device = record.info.deviceID,
            let address = record.advert?.addresses.first, autoDialled[peer] != address,
            dials(record, device: device),
            !connections.values.contains(where: { $0.intended == peer || $0.peer == peer })
        else { return }
        autoDialled[peer] = address
        actions.append(.connect(peer, timeout: .seconds(120), reason: .found))
    }

    /// Whether the peer table may take `advert` (`docs/security.md` §5 C8): known peers and pinned devices always;
    /// others while the table is below its limit, after forgetting a peer that is gone if need be. A peer connected
    /// less than the redelivery window ago is not gone: it may still send again messages that its record says
    /// arrived.
    mutating func hasRoom(for advert: PeerAdvert, now: ContinuousClock.Instant) -> Bool {
        guard peers[advert.peer] == nil, peers.count >= configuration.maximumKnownPeers else { return true }
        let gone = peers.keys.sorted().first { id in
            let record = peers[id]!
            return record.advert == nil && record.connection == nil && record.outbox == nil
                && !reconnecting.contains(id)
                && record.disconnectedAt.map { $0.duration(to: now) >= configuration.redeliveryWindow } ?? true
        }
        if let gone {
            peers[gone] = nil
            return true
        }
        if advert.deviceID == local.device || trust.isPinned(advert.deviceID) { return true }
        ignoreAdvert(
            "ignored an advert: the peer table is full",
            ["peer": "\(advert.peer)", "limit": "\(configuration.maximumKnownPeers)"]
        )
        return false
    }

    // MARK: - Stopping

    /// Says goodbye on every connection, fails every waiting `connect` and transfer, and reports what will never
    /// be sent again. Later inputs change nothing.
    mutating func stop() {
        guard !stopped else { return }
        stopped = true
        let slots = connections.keys.sorted().compactMap { connections[$0] }
        connections.removeAll()
        requests.removeAll()
        for slot in slots {
            write(.close(.goodbye), on: slot.id)
            if let waiter = slot.waiter { finish(waiter: waiter, .stopped) }
        }
        for waiter in parkedWaiters.keys.sorted() { finish(waiter: waiter, .stopped) }
        parkedWaiters.removeAll()
        var ended: Set<PeerID> = []
        for peer in slots.compactMap(\.peer) where ended.insert(peer).inserted {
            actions.append(.endTransfers(peer, .stopped))
        }
        reportOutboxes()
    }
}
