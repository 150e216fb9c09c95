import ArgumentParser
import Foundation
import Huddle

/// Measures against a `serve` found by name.
struct Client: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run one measurement against a serving peer.")

    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case rtt, throughput, connect, datagrams, chat
        case ping
        case reliablePing = "reliable-ping"
        case datagramRate = "datagram-rate"
    }

    @OptionGroup var options: BenchSessionOptions
    @Option(help: "The serving peer's name.") var to: String
    @Option var mode: Mode
    @Option var count = 10_000
    @Option var size = 1000
    @Option(help: "Messages a throughput run keeps in flight before waiting.") var window = 256
    @Option(help: "The file a chat run sends while it chats.") var file: String?
    @Option(help: "Bytes of the file sent before a chat run starts chatting.") var after = 32 << 20
    @Option(help: "Milliseconds between a chat run's messages.") var interval = 50

    func run() async throws {
        let session = try await options.start()
        var replies = Replies(session: session)
        let peer = try await replies.find(named: to)
        let connectStart = ContinuousClock.now
        try await session.connect(to: peer, timeout: .seconds(30))
        let firstConnect = milliseconds(connectStart.duration(to: .now))
        switch mode {
        case .rtt:
            var samples: [Double] = []
            let message = Array("P".utf8) + Array(repeating: 0x61, count: max(0, size - 1))
            for index in 0..<count {
                let start = ContinuousClock.now
                try await session.send(message, to: [peer])
                _ = await replies.next(startingWith: "P")
                if index >= count / 10 { samples.append(milliseconds(start.duration(to: .now)) * 1000) }
            }
            emit([
                "mode": "rtt", "size": size, "count": samples.count, "p50_us": quantile(samples, 0.5),
                "p99_us": quantile(samples, 0.99),
            ])
        case .throughput:
            let message = Array("T".utf8) + Array(repeating: 0x61, count: max(0, size - 1))
            let start = ContinuousClock.now
            for _ in 0..<count { try await session.send(message, to: [peer]) }
            try await session.send(Array("E".utf8), to: [peer])
            let reply = String(decoding: await replies.next(startingWith: "R") ?? [], as: UTF8.self)
            let fields = reply.split(separator: " ")
            let received = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            let seconds = start.duration(to: .now)
            emit([
                "mode": "throughput", "size": size, "sent": count, "received": received,
                "messages_per_s": Double(received) / (milliseconds(seconds) / 1000),
            ])
        case .connect:
            var samples: [Double] = []
            for _ in 0..<count {
                await session.disconnect(peer)
                try await replies.waitUntilDisconnected(peer)
                let start = ContinuousClock.now
                try await session.connect(to: peer, timeout: .seconds(30))
                samples.append(milliseconds(start.duration(to: .now)))
            }
            emit([
                "mode": "connect", "first_ms": firstConnect, "count": samples.count,
                "p50_ms": quantile(samples, 0.5), "p99_ms": quantile(samples, 0.99),
            ])
        case .chat:
            try await chatDuringTransfer(session: session, peer: peer, replies: &replies)
        case .ping, .reliablePing:
            try await pings(session: session, peer: peer, reliable: mode == .reliablePing)
        case .datagramRate:
            try await datagramRate(session: session, peer: peer, replies: &replies)
        case .datagrams:
            for sequence in 0..<UInt64(count) {
                try await session.send(datagramPayload(sequence, size: size), to: [peer], mode: .unreliable)
                if sequence % 64 == 63 { try await Task.sleep(for: .milliseconds(1)) }
            }
            try await Task.sleep(for: .milliseconds(500))
            try await session.send(Array("Q".utf8), to: [peer])
            let reply = await replies.next(startingWith: "S") ?? []
            var result = (try? JSONSerialization.jsonObject(with: Data(reply.dropFirst()))) as? [String: Any] ?? [:]
            result["mode"] = "datagrams"
            result["sent"] = count
            emit(result)
        }
        await session.stop()
    }
}

/// The client's view of the session's events, read inline (no extra task between the socket and the caller).
struct Replies {
    var events: PeerSessionEvents.AsyncIterator
    var messages: [[UInt8]] = []
    var disconnected: Set<PeerID> = []
    var found: [String: PeerID] = [:]

    init(session: PeerSession) {
        self.events = session.events.makeAsyncIterator()
    }

    /// Takes the next event and files it; `nil` when the session ended.
    mutating func pump() async -> PeerSessionEvent? {
        guard let event = await events.next() else { return nil }
        switch event {
        case .stateChanged(let peer, .disconnected): disconnected.insert(peer)
        case .stateChanged(let peer, .connected): disconnected.remove(peer)
        case .peerFound(let info): found[info.displayName] = info.id
        default: break
        }
        return event
    }

    mutating func find(named name: String) async throws -> PeerID {
        while found[name] == nil {
            guard await pump() != nil else { throw ValidationError("the session ended") }
        }
        return found[name]!
    }

    /// The next message starting with `letter`; others are kept.
    mutating func next(startingWith letter: Character) async -> [UInt8]? {
        let byte = letter.asciiValue!
        if let index = messages.firstIndex(where: { $0.first == byte }) { return messages.remove(at: index) }
        while let event = await pump() {
            guard case .received(let bytes, _, _) = event else { continue }
            if bytes.first == byte { return bytes }
            messages.append(bytes)
        }
        return nil
    }

    mutating func waitUntilDisconnected(_ peer: PeerID) async throws {
        while !disconnected.contains(peer) {
            guard await pump() != nil else { throw ValidationError("the session ended") }
        }
    }
}
