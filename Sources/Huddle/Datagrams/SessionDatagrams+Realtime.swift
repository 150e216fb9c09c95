import HuddleWire
import NIOCore

/// PINGs and the figures of each link (`docs/realtime.md`, "Link statistics").
extension SessionDatagrams {
    struct PingKey: Hashable {
        let connection: ConnectionID
        let ping: UInt32
    }

    /// Sends a PING of `size` bytes to `peer` on connection `id` and waits for its PONG: the round trip, or nil
    /// when none came within `timeout` (or the link ended).
    /// - Throws: ``PeerSessionError/needsNewerPeer(_:version:)`` for a link of version 2,
    ///   ``PeerSessionError/notConnected(_:)`` without a link.
    func ping(_ peer: PeerID, on id: ConnectionID, size: Int, timeout: Duration) async throws -> Duration? {
        guard links.hasLink(on: id) else { throw PeerSessionError.notConnected(peer) }
        guard let (ping, payload) = links.withRealtime(on: id, { $0.ping(now: now, size: size) }) else {
            throw PeerSessionError.needsNewerPeer(peer, version: 2)
        }
        try write([(peer, id, [payload])])
        let key = PingKey(connection: id, ping: ping)
        let (clock, deadline) = (self.clock, clock.now + timeout)
        let timer = Task { [weak self] in
            guard (try? await clock.sleep(until: deadline)) != nil else { return }
            await self?.expire(key)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { pingWaiters[key] = $0 }
    }

    func expire(_ key: PingKey) {
        pingWaiters.removeValue(forKey: key)?.resume(returning: nil)
    }

    /// Every ``PeerSessionConfiguration/linkPingInterval``, one PING on each link of version 3, whose PONG feeds
    /// the link's round trip and loss figures.
    func startPinging() {
        guard let interval = linkPingInterval, pinger == nil else { return }
        let clock = self.clock
        pinger = Task { [weak self] in
            var next = clock.now + interval
            while (try? await clock.sleep(until: next)) != nil {
                await self?.pingEveryLink()
                next = max(next + interval, clock.now)
            }
        }
    }

    func pingEveryLink() {
        for (id, peer) in peers {
            guard let payload = links.withRealtime(on: id, { $0.ping(now: now).payload }) else { continue }
            try? write([(peer, id, [payload])])
        }
    }
}
