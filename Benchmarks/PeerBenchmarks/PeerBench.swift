// Peer-session benchmarks and probes, run between test hosts or on one machine.
//
//   huddle-peer-bench serve  --name B …            answers pings, counts messages and datagrams
//   huddle-peer-bench client --to B --mode rtt …   measures against a `serve` (rtt, throughput, connect, datagrams,
//                                                  chat: messages timed while a file is sent to `serve --dir`)
//   huddle-peer-bench mesh   --sessions 32         N sessions in one process forming a full mesh
//   huddle-peer-bench tls-echo --port P | --to H:P  a bare NIO TLS 1.3 echo: the round trip's floor
//
// Every result is one JSON object on one line. BENCHMARKS.md records the figures and how to reproduce them.
import ArgumentParser
import Foundation
import Huddle
import HuddleDiscovery
import HuddleTransport
import NIOPosix

@main
struct PeerBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "huddle-peer-bench",
        abstract: "Benchmarks and probes for Huddle peer sessions.",
        subcommands: [Serve.self, Client.self, Mesh.self, TLSEcho.self, UDPEcho.self]
    )
}

/// Options of the commands that run one session on the network.
struct BenchSessionOptions: ParsableArguments {
    @Option var session = "HuddleBench"
    @Option var name: String
    @Option(name: .customLong("data-dir")) var dataDirectory: String
    @Option var interface: [String] = []
    @Option var host: String?
    @Option(help: "The TCP port to listen on, and the UDP port of the datagrams (0: any free port).")
    var port = 0
    @Flag(
        name: .customLong("on-event-loop"),
        help: """
            Run every connection on one event loop and handle events on it (EventLoopTaskExecutor), with ACKs \
            waiting up to 5 ms for a reply to carry them.
            """
    )
    var onEventLoop = false

    /// The one loop every connection runs on with `--on-event-loop`.
    static let loop = MultiThreadedEventLoopGroup.singleton.next()

    func start() async throws -> PeerSession {
        var discovery = DiscoveryConfiguration()
        discovery.allowInterfaces = interface
        discovery.hostLabel = host
        var configuration = PeerSessionConfiguration()
        configuration.dataDirectory = URL(fileURLWithPath: dataDirectory)
        configuration.trustsOnFirstUse = true
        configuration.listenPort = port
        configuration.connection.maximumMessageSize = 16 * 1024 * 1024
        if onEventLoop {
            configuration.eventLoopGroup = Self.loop
            configuration.connection.acknowledgementDelay = .milliseconds(5)
        }
        let stack = try await MDNSStack.start(configuration: discovery)
        let session = try await PeerSession.loadingIdentity(
            sessionID: session,
            displayName: name,
            mode: .peer,
            configuration: configuration,
            directory: MDNSPeerDirectory(stack: stack)
        )
        try await session.start()
        return session
    }
}

/// One JSON object on one line, flushed at once.
func emit(_ object: [String: Any]) {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

/// Milliseconds, for printing.
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// The value at fraction `q` of sorted `values`.
func quantile(_ values: [Double], _ q: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q + 0.5))]
}

/// The payload of datagram `sequence`: its number, then bytes derived from it, so corruption is detectable.
func datagramPayload(_ sequence: UInt64, size: Int) -> [UInt8] {
    var bytes: [UInt8] = [UInt8(ascii: "D")]
    withUnsafeBytes(of: sequence.bigEndian) { bytes += $0 }
    var state = sequence &* 0x9E37_79B9_7F4A_7C15 | 1
    while bytes.count < size {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        bytes.append(UInt8(truncatingIfNeeded: state))
    }
    return bytes
}

/// Resident memory of this process, in bytes.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}
