import Foundation
import Huddle

/// The real-time layer's figures (`BENCHMARKS.md`, "Real-time"; `bench_realtime.py` runs them beside a bare NIO UDP
/// echo and ENet between the same test hosts).
extension Client {
    /// `--mode ping` / `reliable-ping`: `count` PINGs of `size` bytes one after another, each answered by the
    /// serving session (`PeerSession.ping`): a datagram, or a message on the TLS stream.
    func pings(session: PeerSession, peer: PeerID, reliable: Bool) async throws {
        var samples: [Double] = []
        var lost = 0
        for index in 0..<count {
            guard let roundTrip = try await session.ping(peer, size: size, timeout: .seconds(1), reliable: reliable)
            else {
                lost += 1
                continue
            }
            if index >= count / 10 { samples.append(milliseconds(roundTrip) * 1000) }
        }
        emit([
            "mode": reliable ? "reliable-ping" : "ping", "size": size, "count": samples.count, "lost": lost,
            "p50_us": quantile(samples, 0.5), "p99_us": quantile(samples, 0.99),
        ])
    }

    /// `--mode datagram-rate`: `count` unreliable messages of `size` bytes as fast as the sender can seal them;
    /// the server counts what arrived and over how long.
    func datagramRate(session: PeerSession, peer: PeerID, replies: inout Replies) async throws {
        // Made before the clock starts: the sender's own work is sealing and sending.
        let payloads = (0..<UInt64(count)).map { datagramPayload($0, size: size) }
        let start = ContinuousClock.now
        for payload in payloads { try await session.send(payload, to: [peer], mode: .unreliable) }
        let sending = milliseconds(start.duration(to: .now)) / 1000
        try await Task.sleep(for: .milliseconds(500))
        try await session.send(Array("Q".utf8), to: [peer])
        let reply = await replies.next(startingWith: "S") ?? []
        var result = (try? JSONSerialization.jsonObject(with: Data(reply.dropFirst()))) as? [String: Any] ?? [:]
        result["mode"] = "datagram-rate"
        (result["sent"], result["size"]) = (count, size)
        result["sent_per_s"] = Double(count) / sending
        emit(result)
    }
}
