public import Huddle
import HuddleWire

/// `huddle ping NAME`: ping(8) for a peer of the session (`docs/realtime.md`, "huddle ping"). PINGs go every
/// `interval`, one of each kind (a datagram, a message on the TLS stream, or both), each waited for up to `timeout`
/// while the next ones go; a line or a record per reply or timeout, then a summary per kind: sent, received, loss,
/// the round trip's median and 99th percentile, and the jitter (``PingTally``).
public struct PingRun: Sendable {
    /// How a PING travels.
    public enum Kind: String, Sendable, CaseIterable, Encodable {
        /// A datagram over UDP.
        case unreliable
        /// A reliable message over TLS, behind what was sent before it.
        case reliable

        var shown: String { self == .unreliable ? "udp" : "tls" }
    }

    public var count = 10
    public var interval = Duration.seconds(1)
    /// The PING's payload, in bytes: from 13 (a datagram PING's fields) to ``PeerSession/maximumDatagramPayload``.
    public var size = 64
    /// How long a PING waits for its PONG before it counts as lost.
    public var timeout = Duration.seconds(2)
    public var json = false
    /// The kinds sent each time, in this order.
    public var kinds = Kind.allCases

    public init() {}

    public init(count: Int, interval: Duration, size: Int, kinds: [Kind] = Kind.allCases, json: Bool = false) {
        (self.count, self.interval, self.size, self.kinds, self.json) = (count, interval, size, kinds, json)
    }

    /// Pings `peer`, named `name`, on `session`; `line` and `record` print. Returns a summary per kind.
    /// - Throws: ``PeerSessionError`` when the peer is gone or speaks protocol version 2 (no PINGs).
    @discardableResult
    public func run(
        _ peer: PeerID,
        named name: String,
        on session: PeerSession,
        line: @escaping @Sendable (String) -> Void,
        record: @escaping @Sendable (any Encodable & Sendable) -> Void
    ) async throws -> [PingSummaryRecord] {
        let size = min(max(size, 13), session.maximumDatagramPayload)
        if !json {
            let kinds = kinds.map { $0 == .unreliable ? "unreliable (UDP)" : "reliable (TLS)" }.joined(
                separator: " and "
            )
            line("PING \(name): \(size) bytes of payload, \(kinds), every \(Self.text(interval))")
        }
        let (events, sink) = AsyncStream.makeStream(of: (kind: Kind, sequence: Int, reply: Duration??).self)
        let (count, interval, timeout, kinds) = (self.count, self.interval, self.timeout, self.kinds)
        // The PINGs go on time, each waited for on its own; their replies are shown as they come.
        let sender = Task {
            defer { sink.finish() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for sequence in 0..<count {
                    if sequence > 0 { try await Task.sleep(for: interval) }
                    for kind in kinds {
                        sink.yield((kind, sequence, nil))
                        group.addTask {
                            let reply = try await session.ping(
                                peer,
                                size: size,
                                timeout: timeout,
                                reliable: kind == .reliable
                            )
                            sink.yield((kind, sequence, reply))
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        var tallies = [Kind: PingTally]()
        for await (kind, sequence, reply) in events {
            guard let roundTrip = reply else {
                tallies[kind, default: PingTally()].sent(UInt32(sequence))
                continue
            }
            if let roundTrip { tallies[kind, default: PingTally()].replied(UInt32(sequence), after: roundTrip) }
            if json {
                record(PingReplyRecord(kind: kind, sequence: sequence, roundTrip: roundTrip, size: size))
            } else if let roundTrip {
                line("\(size) bytes from \(name): seq=\(sequence) \(kind.shown) time=\(Self.text(roundTrip))")
            } else {
                line("no reply from \(name): seq=\(sequence) \(kind.shown) (waited \(Self.text(timeout)))")
            }
        }
        try await sender.value
        let summaries = kinds.map { PingSummaryRecord(tallies[$0] ?? PingTally(), kind: $0) }
        for summary in summaries {
            if json {
                record(summary)
            } else {
                line(summary.text(name))
            }
        }
        return summaries
    }

    static func text(_ duration: Duration) -> String {
        let milliseconds = PingReplyRecord.milliseconds(duration)
        return milliseconds >= 1000 ? "\(Self.rounded(milliseconds / 1000)) s" : "\(Self.rounded(milliseconds)) ms"
    }

    static func rounded(_ value: Double) -> String {
        let hundredths = (value * 100).rounded() / 100
        return hundredths == hundredths.rounded() ? String(Int(hundredths)) : String(hundredths)
    }
}

extension PingRun {
    /// Finds the peer named `name` (the only one, when nil) within `wait`, answering connection requests on the
    /// way as `prompter` asks (or yes under `autoAccept`), then pings it as ``run(_:named:on:line:record:)``.
    public func run(
        to name: String?,
        on session: PeerSession,
        wait: Duration,
        prompter: Prompter,
        autoAccept: Bool,
        line: @escaping @Sendable (String) -> Void,
        record: @escaping @Sendable (any Encodable & Sendable) -> Void
    ) async throws -> [PingSummaryRecord] {
        let events = session.events
        let answers = Task {
            for await event in events {
                guard case .connectionRequest(let request) = event else { continue }
                await ClipPairing.answer(
                    request,
                    session: session,
                    prompter: prompter,
                    autoAccept: autoAccept,
                    say: line
                )
            }
        }
        defer { answers.cancel() }
        let peer = try await Rendezvous(session: session).connect(to: name, within: wait)
        let shown = await session.displayName(for: peer) ?? name ?? peer.rawValue
        return try await run(peer, named: shown, on: session, line: line, record: record)
    }
}
