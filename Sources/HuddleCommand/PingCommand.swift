import ArgumentParser
import Huddle
import HuddleApp

struct PingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ping",
        abstract: "Time round trips to a peer, like ping(8): round trip, loss and jitter, over UDP and TLS.",
        discussion: """
            Connects to the peer named (the only one found, if none is named; compare the code at first \
            contact), then every --interval seconds, --count times, sends a PING datagram (udp) and a PING \
            message on the TLS stream (tls), and shows each reply and a summary of each kind: sent, received, \
            loss, the median and 99th percentile of the round trip, and the jitter. Every session command (chat, \
            peers, receive, …) answers PINGs. Exits 1 when a kind got no reply.

              huddle ping Bob
              huddle ping Bob --unreliable --count 200 --interval 0.05 --json --yes
            """
    )

    @Argument(help: "The peer's name (default: the only peer found).") var name: String?
    @Option(help: "How many PINGs.") var count = 10
    @Option(help: ArgumentHelp("Seconds between PINGs.", valueName: "S")) var interval = 1.0
    @Option(help: ArgumentHelp("Bytes of each PING, 13 to 1200.", valueName: "B")) var size = 64
    @Flag(help: "Datagrams only (UDP).") var unreliable = false
    @Flag(help: "Reliable messages only (TLS).") var reliable = false
    @Option(help: "How long to look for the peer, in seconds.") var wait: Double = 15
    @Flag(help: "Print one JSON object per reply, then the summary.") var json = false
    @OptionGroup var options: SessionOptions

    func validate() throws {
        guard count > 0, interval > 0, (13...1200).contains(size), !(unreliable && reliable) else {
            throw ValidationError("--count and --interval above 0, --size from 13 to 1200, one of --(un)reliable")
        }
    }

    func run() async throws {
        let session = try await options.startSession(mode: .peer)
        let kinds: [PingRun.Kind] = unreliable ? [.unreliable] : reliable ? [.reliable] : PingRun.Kind.allCases
        let ping = PingRun(
            count: count,
            interval: .milliseconds(Int(interval * 1000)),
            size: size,
            kinds: kinds,
            json: json
        )
        let summaries = try await CommandServices.interruptible([session]) {
            try await CommandFailure.run {
                try await ping.run(
                    to: name,
                    on: session,
                    wait: .seconds(wait),
                    prompter: .standard,
                    autoAccept: options.yes,
                    line: { Output.line($0) },
                    record: { Output.json($0) }
                )
            }
        }
        if summaries.contains(where: { $0.received == 0 }) { throw ExitCode.failure }
    }
}
