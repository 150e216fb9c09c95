import ArgumentParser
import Foundation
import Huddle
import HuddleTransport
import HuddleWire

/// Answers a `client`: echoes pings, counts a throughput run, checks datagrams, receives files into `--dir` and
/// times the chat messages that arrive meanwhile.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve benchmark clients until stopped.")

    @OptionGroup var options: BenchSessionOptions
    @Option(help: "Accept offered files into this directory (default: decline them).") var dir: String?

    func run() async throws {
        let session = try await options.start()
        emit(["event": "ready", "device": session.identity.deviceID.shortID])
        guard options.onEventLoop else { return try await serve(session) }
        // Events are handled, and replies written, on the connections' own loop.
        try await withTaskExecutorPreference(EventLoopTaskExecutor(BenchSessionOptions.loop)) {
            try await serve(session)
        }
    }

    func serve(_ session: PeerSession) async throws {
        var counted = 0
        var firstMessage: ContinuousClock.Instant?
        var datagrams = Set<UInt64>()
        var datagramSpan: (first: ContinuousClock.Instant, last: ContinuousClock.Instant)?
        var duplicates = 0
        var corrupt = 0
        var receiving: (completed: UInt64, total: UInt64)?
        for await event in session.events {
            switch event {
            case .transferOffered(let transfer):
                guard let dir else {
                    await session.declineTransfer(transfer)
                    continue
                }
                emit(["event": "offer", "name": transfer.name, "size": Int(transfer.size)])
                receiving = (0, transfer.size)
                try? await session.acceptTransfer(transfer, into: URL(fileURLWithPath: dir))
            case .transferProgress(let progress) where progress.direction == .receiving:
                receiving = (progress.completed, progress.total)
            case .transferFinished(_, _, let url):
                receiving = nil
                emit(["event": "received", "path": url.path])
            case .transferFailed(_, _, let error):
                receiving = nil
                emit(["event": "failed", "error": "\(error)"])
            case .stateChanged(let peer, let state):
                emit(["event": "state", "peer": peer.rawValue, "state": state.rawValue])
            case .received(let bytes, let peer, _):
                switch bytes.first {
                case UInt8(ascii: "P"):
                    try? await session.send(bytes, to: [peer])
                case UInt8(ascii: "T"):
                    if firstMessage == nil { firstMessage = .now }
                    counted += 1
                case UInt8(ascii: "E"):
                    let elapsed = firstMessage.map { $0.duration(to: .now) } ?? .zero
                    let reply = "R \(counted) \(milliseconds(elapsed))"
                    try? await session.send(Array(reply.utf8), to: [peer])
                    counted = 0
                    firstMessage = nil
                case UInt8(ascii: "C"):
                    emit(ChatStamp.arrival(of: bytes, receiving: receiving))
                case UInt8(ascii: "D"):
                    datagramSpan = (datagramSpan?.first ?? .now, .now)
                    guard bytes.count >= 9 else {
                        corrupt += 1
                        continue
                    }
                    let sequence = bytes[1..<9].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                    if datagramPayload(sequence, size: bytes.count) != bytes {
                        corrupt += 1
                    } else if !datagrams.insert(sequence).inserted {
                        duplicates += 1
                    }
                case UInt8(ascii: "Q"):
                    let counters = await session.datagramCounters(for: peer)
                    let reply: [String: Any] = [
                        "unique": datagrams.count, "duplicates": duplicates, "corrupt": corrupt,
                        "replayDropped": Int(counters?.replayDropped ?? 0),
                        "authFailures": Int(counters?.authFailures ?? 0),
                        "received_per_s": datagramSpan.map {
                            rate(datagrams.count, over: $0.first.duration(to: $0.last))
                        } ?? 0,
                    ]
                    datagramSpan = nil
                    let data = try JSONSerialization.data(withJSONObject: reply, options: [.sortedKeys])
                    try? await session.send(Array("S".utf8) + Array(data), to: [peer])
                    datagrams.removeAll()
                    duplicates = 0
                    corrupt = 0
                default:
                    continue
                }
            default:
                continue
            }
        }
    }
}

/// `count` a second over `span`; 0 for an empty span.
func rate(_ count: Int, over span: Duration) -> Double {
    let seconds = milliseconds(span) / 1000
    return seconds > 0 ? Double(count) / seconds : 0
}
