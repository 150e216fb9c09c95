import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleDaemon

struct PeersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peers",
        abstract: "List the peers of a session live, and pick one to connect to (like GameKit's peer picker).",
        discussion: """
            Shows every peer of the session with its state (available, connecting, connected, …) as it \
            changes. Type a peer's number to connect to it; at first contact compare the code and answer y or n. \
            /peer HOST[:PORT] also looks for a peer at that address (like --peer); /quit leaves. --json prints \
            one object per event instead, for scripts.

            LocalSend and KDE Connect devices nearby are listed too, apart, with their protocol and certificate \
            fingerprint and whether it is pinned: nothing verifies who they are (send to one with huddle send --to \
            NAME). A KDE Connect device that asks to pair is asked about here too: compare the verification key.

            While a daemon runs, this is the daemon's picker: its devices, listed again as they change, and its \
            questions (y N or n N answers one); --json lists the devices once.
            """
    )

    @OptionGroup var options: SessionOptions
    @OptionGroup var foreignOptions: ForeignOptions
    @Flag(help: "Print one JSON object per line.") var json = false
    @Option(help: "server (advertise, accept), client (browse, connect) or peer (both).") var mode: ModeArgument = .peer

    enum ModeArgument: String, ExpressibleByArgument, CaseIterable {
        case server, client, peer
        var mode: PeerSessionMode { PeerSessionMode(rawValue: rawValue)! }
    }

    func run() async throws {
        if let daemon = await DaemonRoute.client(options.data) {
            // The daemon's view (it holds the session's ports): live, or once with --json.
            guard json else {
                let lines = await Prompter.standard.unclaimedLines()
                return try await CommandFailure.run {
                    try await DaemonPeers.run(daemon, lines: lines, say: Output.line)
                }
            }
            for device in try await CommandFailure.run({ try await daemon.devices() }) { Output.json(device) }
            return
        }
        let session = try await options.startSession(mode: mode.mode)
        let foreign = try foreignOptions.services(options: options, beside: session, takesOffers: false)
        let printer = InboxPrinter(reporter: ProgressReporter(json: json), json: json, assumeYes: options.yes)
        let picker = PeerPicker(
            session: session,
            json: json,
            autoAccept: options.yes,
            prompter: .standard,
            questions: printer.questions(foreign),
            screen: PeerPicker.Screen(line: { Output.line($0) }, record: { Output.json($0) })
        )
        if !json {
            Output.line("Peers in \"\(options.sessionID())\" (you: \(session.displayName)). Type a number to connect.")
        }
        // Until end of input or Ctrl-C; the session then says goodbye to everyone.
        _ = try await CommandServices.run([session] + foreign.lifecycle) {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await picker.followEvents() }
                for service in foreign.services {
                    group.addTask { await picker.followForeign(service) }
                }
                group.addTask { await picker.readInput() }
                _ = await group.next()
                group.cancelAll()
            }
        }
    }
}
