import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleTransport
import HuddleWire

struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Chat with everyone nearby in the same session (the seeds' \"Typing Together\").",
        discussion: """
            Joins the session, shows peers as they come and go, and connects to each. At first contact both \
            screens show the same six-digit code: compare them and answer y to connect (n to refuse). Devices \
            paired once reconnect without a code. Lines you type go to every connected peer.

            Commands: /peers lists peers and their states, /connect NAME dials a peer by name, \
            /peer HOST[:PORT] also looks for a peer at that address, /quit leaves (so does Ctrl-D or Ctrl-C).

            A peer on another subnet, or on a network that drops multicast, is not found nearby: name its \
            address with --peer HOST[:PORT] (or /peer while chatting). It listens on port 47474 unless told \
            otherwise with --port. The address is only where to dial: its key, and the code at first contact, \
            decide who it is.

            Two terminals on one machine need two identities, e.g.:
              HUDDLE_HOME=/tmp/ada huddle chat --name Ada
              HUDDLE_HOME=/tmp/bob huddle chat --name Bob
            """
    )

    @OptionGroup var options: SessionOptions

    func run() async throws {
        // Everyone in the room connects to everyone: the session dials the peers it finds.
        let session = try await options.startSession(mode: .peer) { $0.connectsToFoundPeers = true }
        let findable = await session.findableName()
        Output.line(
            "Chatting in \"\(options.sessionID())\" as \(findable) (device \(session.identity.deviceID.shortID)). "
                + "Type to talk; /peers, /quit."
        )
        let room = ChatRoom(session: session, autoAccept: options.yes)
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

/// The chat's state: who is who. Questions go to the process's one ``Prompter``: one on screen at a time, and
/// the lines that answer none are the chat's.
actor ChatRoom {
    let session: PeerSession
    let autoAccept: Bool
    let prompter: Prompter
    var seen: Set<PeerID> = []
    let outbox: ChatOutbox

    init(session: PeerSession, autoAccept: Bool, prompter: Prompter = .standard) {
        self.session = session
        self.autoAccept = autoAccept
        self.prompter = prompter
        self.outbox = ChatOutbox(session: session) { notice in
            switch notice {
            case .notReading(let peer):
                let who = await session.displayName(for: peer) ?? peer.rawValue
                Output.line("! \(who) is not reading: lines to it are dropped until it catches up")
            case .notSent(let peer, let error):
                let who = await session.displayName(for: peer) ?? peer.rawValue
                Output.line("! not sent to \(who): \(error)")
            }
        }
    }

    func followEvents() async {
        for await event in session.events {
            await handle(event)
        }
    }

    func readInput() async {
        for await line in await prompter.unclaimedLines() {
            if await !handle(line: line) { return }
        }
    }

    func name(_ peer: PeerID) async -> String {
        await session.displayName(for: peer) ?? peer.rawValue
    }

    func handle(_ event: PeerSessionEvent) async {
        switch event {
        case .peerFound(let info):
            guard seen.insert(info.id).inserted else { return }
            let dialled = info.dialledAt.map { " (dialled at \($0), not found nearby)" } ?? ""
            Output.line("* \(info.displayName) (\(info.deviceID?.shortID ?? "?")) is here\(dialled)")
        case .connectionRequest(let request):
            ask(request)
        case .connectionRequestEnded(let id, let error):
            let note = "* request \(id) ended: \(error)"
            if await !prompter.withdraw(key: "\(id)", note: note) { Output.line(note) }
        case .stateChanged(let peer, .connected):
            Output.line("* connected to \(await name(peer))")
        case .stateChanged(let peer, .disconnected):
            outbox.close(peer)
            Output.line("* \(await name(peer)) left the chat")
        case .stateChanged(let peer, .unavailable):
            seen.remove(peer)
            Output.line("* \(await name(peer)) is gone")
        case .stateChanged:
            break
        case .received(let bytes, let peer):
            Output.line("\(await name(peer)): \(DisplayText.sanitized(bytes: bytes, limit: 4096))")
        case .undelivered(let messages, let peer):
            let lines = messages.count == 1 ? "1 line" : "\(messages.count) lines"
            Output.line("! \(lines) to \(await name(peer)) did not arrive (it left before reading them)")
            for message in messages.prefix(5) {
                Output.line("!   \(DisplayText.sanitized(bytes: message, limit: 200))")
            }
        case .pairingPaused(let pause):
            Output.line("! \(pause)")
        case .addressUnreachable(let address, let error):
            Output.line("! \(DirectAddressText.unreachable(address, error))")
        case .peerError(let peer?, let failure) where failure.code == .autoConnectFailed:
            let error = failure.underlying ?? failure
            Output.line("! could not connect to \(await name(peer)): \(error)")
        case .pairedByLink(let peer, let device):
            Output.line("* paired with \(await name(peer)) (\(device.shortID)) by the pairing link: verified")
        case .peerError(let peer, let error):
            let who = if let peer { await name(peer) } else { "session" }
            Output.line("! \(who): \(error)")
        case .transferOffered(let transfer):
            await session.declineTransfer(transfer, reason: "chat does not take files; use huddle receive")
        case .transferProgress, .transferFinished, .transferReceivedData, .transferFailed:
            break
        }
    }

    /// Shows the request and its question when no other question is on screen; answers it when answered.
    func ask(_ request: PeerConnectionRequest) {
        let session = self.session
        if request.mayBeAutoAccepted(autoAccept) {
            for line in request.question + ["* accepting (--yes)"] { Output.line(line) }
            Task { await session.accept(request) }
            return
        }
        let prompter = self.prompter
        Task {
            switch await request.decide(autoAccept: false, prompter: prompter) {
            case true?:
                await session.accept(request)
                Output.line("* accepted \(request.displayName)")
            case false?:
                await session.deny(request)
                Output.line("* refused \(request.displayName)")
            case nil:
                break  // the request ended first (said when it did)
            }
        }
    }

    /// Returns false to leave.
    func handle(line: String) async -> Bool {
        let text = line.trimmingCharacters(in: .whitespaces)
        switch text {
        case "":
            return true
        case "/quit":
            return false
        case _ where await PeerAddressCommand.handle(text, session: session):
            return true
        case _ where text.hasPrefix("/connect "):
            let wanted = String(text.dropFirst("/connect ".count)).trimmingCharacters(in: .whitespaces)
            var target: PeerID?
            for peer in await session.peers(in: .available) where await name(peer) == wanted { target = peer }
            guard let target else {
                Output.line("! no available peer is called \(wanted)")
                return true
            }
            let session = self.session
            Task {
                do {
                    try await session.connect(to: target, timeout: .seconds(120))
                } catch {
                    Output.line("! could not connect to \(wanted): \(error)")
                }
            }
            return true
        case "/peers":
            for state in PeerState.allCases {
                for peer in await session.peers(in: state) {
                    Output.line("  \(await name(peer)) — \(state.rawValue)")
                }
            }
            return true
        default:
            let peers = await session.peers(in: .connected)
            guard !peers.isEmpty else {
                Output.line("(nobody is connected yet)")
                return true
            }
            await outbox.send(Array(line.utf8), to: peers)
            return true
        }
    }
}
