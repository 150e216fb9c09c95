import ArgumentParser
import Huddle
import HuddleApp
import HuddleDaemon
import HuddleTransport
import HuddleWire

struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Chat with everyone nearby in the same session (like GameKit's \"Typing Together\" sample).",
        discussion: """
            Joins the session, shows peers as they come and go, and connects to each. At first contact both \
            screens show the same six-digit code: compare them and answer y to connect (n to refuse). Devices \
            paired once reconnect without a code. Lines you type go to every connected peer.

            Commands: /peers lists peers and their states, /connect NAME dials a peer by name, \
            /peer HOST[:PORT] also looks for a peer at that address, /lobby KEY=VALUE changes what --lobby \
            advertises (KEY= removes it), /quit leaves (so does Ctrl-D or Ctrl-C).

            A peer on another subnet, or on a network that drops multicast, is not found nearby: name its \
            address with --peer HOST[:PORT] (or /peer while chatting). It listens on port 47474 unless told \
            otherwise with --port. The address is only where to dial: its key, and the code at first contact, \
            decide who it is.

            While huddle daemon runs, the chat is the daemon's: its peers, its questions (huddle answer).

            Two terminals on one machine need two identities, e.g.:
              HUDDLE_HOME=/tmp/ada huddle chat --name Ada
              HUDDLE_HOME=/tmp/bob huddle chat --name Bob
            """
    )

    @OptionGroup var options: SessionOptions

    func run() async throws {
        if let daemon = await DaemonRoute.client(options.data) {
            try await CommandFailure.run {
                try await DaemonChat.run(daemon, lines: await Prompter.standard.unclaimedLines(), say: Output.line)
            }
            return Output.line("* left the chat")
        }
        // Everyone in the room connects to everyone: the session dials the peers it finds.
        let session = try await options.startSession(mode: .peer) { $0.connectsToFoundPeers = true }
        let findable = await session.findableName()
        Output.line(
            "Chatting in \"\(options.sessionID())\" as \(findable) (device \(session.identity.deviceID.shortID)). "
                + "Type to talk; /peers, /quit."
        )
        let room = ChatRoom(session: session, autoAccept: options.yes, prompter: .standard, say: Output.line)
        // Until /quit, end of input or Ctrl-C; the session then says goodbye to everyone.
        _ = try await CommandServices.run([session]) {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await room.followEvents() }
                group.addTask { await room.readInput() }
                _ = await group.next()
                group.cancelAll()
            }
        }
        Output.line("* left the chat")
    }
}
