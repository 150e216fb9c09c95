import HuddleWire
import NIOCore

/// The datagram links of the session's connections, without I/O: each connection's sealer, opener and the peer's
/// UDP address, and the route from a received packet's connection ID to its connection. Time is passed in, as the
/// datagram layer measures it (a monotonic `Duration` since the session started). The actor owns the socket and
/// sends what ``seal(_:for:now:)`` returns; see `docs/security.md` §3.7 and `docs/threat-model.md`, "Datagrams".
struct DatagramLinks {
    /// What became of a received packet.
    enum Opened: Equatable {
        /// It names no link of this session (garbage, or a packet of a link already closed).
        case unrouted
        /// It belongs to connection `id` but did not open (a replay, a forgery, an old epoch): counted, dropped.
        case dropped(connection: ConnectionID)
        /// It opened: `payload` for connection `id`'s peer.
        case delivered([UInt8], connection: ConnectionID)
    }

    private var links: [ConnectionID: DatagramLink] = [:]
    private var routes: [DatagramConnectionID: ConnectionID] = [:]

    /// Starts the link of connection `id`.
    mutating func add(_ link: DatagramLink, on id: ConnectionID) {
        links[id] = link
        routes[link.opener.connectionID] = id
    }

    /// Ends the link of connection `id`; returns the connection ID its packets came under, to forget.
    mutating func remove(on id: ConnectionID) -> DatagramConnectionID? {
        guard let link = links.removeValue(forKey: id) else { return nil }
        let cid = link.opener.connectionID
        if routes[cid] == id { routes[cid] = nil }
        return cid
    }

    /// What connection `id`'s link counted (delivered, replays, forgeries, …).
    func counters(on id: ConnectionID) -> DatagramCounters? { links[id]?.opener.counters }

    /// The real-time rules and figures of connection `id`'s link, from version 3 on.
    func realtime(on id: ConnectionID) -> RealtimeLink? { links[id]?.realtime }

    /// Runs `body` on connection `id`'s real-time rules; nil when the link has none (version 2, or no link).
    mutating func withRealtime<T>(on id: ConnectionID, _ body: (inout RealtimeLink) throws -> T) rethrows -> T? {
        guard var realtime = links[id]?.realtime else { return nil }
        defer { links[id]?.realtime = realtime }
        return try body(&realtime)
    }

    /// Whether connection `id` has a link.
    func hasLink(on id: ConnectionID) -> Bool { links[id] != nil }

    /// The connection ID connection `id` receives under, while its link still receives.
    func receivingConnectionID(on id: ConnectionID) -> DatagramConnectionID? {
        guard let cid = links[id]?.opener.connectionID, routes[cid] == id else { return nil }
        return cid
    }

    /// Opens a packet from `source` at `now`. A packet that opens moves the link's peer address to `source`
    /// (`address` maps it as the socket needs). When forgeries pass the opener's limit, the link stops receiving
    /// (its route goes, the TLS connection stays) and ``stoppedReceiving(on:)`` says how many there were.
    mutating func open(
        _ bytes: [UInt8],
        from source: SocketAddress,
        now: Duration,
        address: (SocketAddress) -> SocketAddress = { $0 }
    ) -> Opened {
        guard let cid = DatagramConnectionID(destinationOf: bytes), let id = routes[cid], var link = links[id] else {
            return .unrouted
        }
        let result = link.opener.open(bytes, now: now)
        var opened = Opened.dropped(connection: id)
        if case .delivered(let payload) = result {
            link.remote = address(source)
            opened = .delivered(payload, connection: id)
        }
        links[id] = link
        if link.opener.isCloseRecommended { routes[cid] = nil }
        return opened
    }

    /// The forgeries that made connection `id`'s link stop receiving, once it has; `nil` while it receives.
    func stoppedReceiving(on id: ConnectionID) -> UInt64? {
        guard let link = links[id], link.opener.isCloseRecommended else { return nil }
        return link.opener.counters.authFailures
    }

    /// Seals `payload` for connection `id`'s peer at `now`, rekeying first when due (2^32 packets or 120 s); the
    /// peer's opener moves to the new epoch when the first packet sealed under it authenticates.
    /// - Returns: where to send the packet, and the packet; `nil` when the connection has no link.
    mutating func seal(_ payload: [UInt8], for id: ConnectionID, now: Duration) throws -> (SocketAddress, [UInt8])? {
        guard var link = links[id] else { return nil }
        if link.sealer.isRekeyDue(now: now) { link.sealer.rekey(now: now) }
        let packet = try link.sealer.seal(payload)
        links[id] = link
        return (link.remote, packet)
    }
}
