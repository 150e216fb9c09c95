import ArgumentParser
import Foundation
import Huddle
import HuddleArenaCore

/// `huddle-arena`: the example game (`docs/realtime.md`, "The example game"). Peers of one session ID find each
/// other nearby, connect, and race for coins: each peer's players' positions go 40 times a second as
/// `unreliableSequenced` datagrams on channel 1, claims and finals as reliable messages on channel 2, and the
/// other peers' players are drawn where interpolation puts them, 100 ms behind.
@main
struct ArenaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "huddle-arena",
        abstract: "A small real-time game for 2 to 4 players nearby: collect the coins.",
        discussion: """
            Start it on two to four machines of one network. It finds the others with the same --session, \
            connects (compare the code the first time, or give --yes), and plays for --duration seconds: steer \
            with the arrow keys, WASD or HJKL, space stops, q ends. --bots adds computer players. At the end \
            every peer prints the digest of the game's state, the same on every machine.

              huddle-arena
              huddle-arena --bots 2 --duration 15 --json --yes
            """
    )

    @Option(help: "Your name (default: the host name).") var name: String?
    @Option(help: "Computer players on this machine, 0 to 4.") var bots = 0
    @Option(help: ArgumentHelp("Seconds of play, once another peer is connected.", valueName: "S"))
    var duration: Double = 60
    @Option(help: ArgumentHelp("Seconds to wait for another player.", valueName: "S")) var wait: Double = 60
    @Option(help: "Play with the peers of this session ID.") var session = "HuddleArena"
    @Option(help: "The TCP and UDP port (another one if it is taken).") var port = 47474
    @Option(help: ArgumentHelp("Where the device key and pins live.", valueName: "dir")) var dataDir: String?
    @Flag(help: "Accept every peer without comparing codes (only on a network you trust).") var yes = false
    @Flag(help: "No screen; print one JSON object at the end (peers, stateDigest, updatesPerSecond).")
    var json = false

    func validate() throws {
        let human = ArenaTerminal.isInteractive && !json
        guard (0...4).contains(bots), duration > 0, wait > 0 else {
            throw ValidationError("--bots from 0 to 4, --duration and --wait above 0")
        }
        guard human || bots > 0 else { throw ValidationError("no terminal to play on: give --bots N") }
        guard bots + (human ? 1 : 0) <= ArenaMatch.maximumLocalPlayers else {
            throw ValidationError("at most \(ArenaMatch.maximumLocalPlayers) players on one machine, you among them")
        }
    }

    func run() async throws {
        var configuration = PeerSessionConfiguration()
        (configuration.listenPort, configuration.listenPortFallsBack) = (port, true)
        (configuration.connectsToFoundPeers, configuration.trustsOnFirstUse) = (true, yes)
        if let dataDir { configuration.dataDirectory = URL(fileURLWithPath: dataDir, isDirectory: true) }
        let shown = name ?? ProcessInfo.processInfo.hostName
        let peer = try await PeerSession.loadingIdentity(
            sessionID: session,
            displayName: shown,
            configuration: configuration
        )
        try await peer.start()
        let game = ArenaGame(
            session: peer,
            table: ArenaTable(
                owner: peer.peerID.rawValue,
                name: shown,
                seed: ArenaResult.seed(of: session),
                bots: bots,
                human: ArenaTerminal.isInteractive && !json,
                configuration: ArenaGame.rules
            ),
            yes: yes,
            json: json
        )
        let result = try await game.play(wait: .seconds(wait), duration: .seconds(duration))
        await peer.stop()
        guard let result else { throw ExitCode.failure }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(result), as: UTF8.self))
        } else {
            print("\(result.peers) other peer(s), \(result.coinsWon) coins, \(result.updatesPerSecond) updates/s")
            print("state digest \(result.stateDigest)\(result.complete ? "" : " (not every final came)")")
        }
    }
}
