public import Huddle
import HuddleWire

/// A chat with everyone connected in a session (as in GameKit's "Typing Together" sample): who is here, what they say, the
/// lines typed (``ChatInput``). Requests are asked through `prompter`, one on screen at a time; everything else
/// is said through `say`, one line each.
public actor ChatRoom {
    let session: PeerSession
    let autoAccept: Bool
    let prompter: Prompter
    let say: @Sendable (String) -> Void
    let outbox: ChatOutbox
    var seen: Set<PeerID> = []

    public init(session: PeerSession, autoAccept: Bool, prompter: Prompter, say: @escaping @Sendable (String) -> Void) {
        self.session = session
        self.autoAccept = autoAccept
        self.prompter = prompter
        self.say = say
        self.outbox = ChatOutbox(session: session) { notice in
            switch notice {
            case .notReading(let peer):
                let who = await session.displayName(for: peer) ?? peer.rawValue
                say("! \(who) is not reading: lines to it are dropped until it catches up")
            case .notSent(let peer, let error):
                let who = await session.displayName(for: peer) ?? peer.rawValue
                say("! not sent to \(who): \(error)")
            }
        }
    }

    /// Follows the session's events until it stops.
    public func followEvents() async {
        for await event in session.events { await handle(event) }
    }

    /// Follows the lines no question claims, until `/quit` or the end of input.
    public func readInput() async {
        for await line in await prompter.unclaimedLines() where await !handle(ChatInput(line)) { return }
    }

    func name(_ peer: PeerID) async -> String {
        await session.displayName(for: peer) ?? peer.rawValue
    }

    package func handle(_ event: PeerSessionEvent) async {
        switch event {
        case .peerFound(let info):
            guard seen.insert(info.id).inserted else { return }
            let dialled = info.dialledAt.map { " (dialled at \($0), not found nearby)" } ?? ""
            let lobby = info.lobby.isEmpty ? "" : " [\(info.lobby)]"
            say("* \(info.displayName) (\(info.deviceID?.shortID ?? "?")) is here\(lobby)\(dialled)")
        case .connectionRequest(let request):
            ask(request)
        case .connectionRequestEnded(let id, let error):
            let note = "* request \(id) ended: \(error)"
            if await !prompter.withdraw(key: "\(id)", note: note) { say(note) }
        case .stateChanged(let peer, .connected):
            say("* connected to \(await name(peer))")
        case .stateChanged(let peer, .disconnected):
            outbox.close(peer)
            say("* \(await name(peer)) left the chat")
        case .stateChanged(let peer, .unavailable):
            seen.remove(peer)
            say("* \(await name(peer)) is gone")
        case .received(let bytes, let peer, _):
            say("\(await name(peer)): \(DisplayText.sanitized(bytes: bytes, limit: 4096))")
        case .undelivered(let messages, let peer):
            let lines = messages.count == 1 ? "1 line" : "\(messages.count) lines"
            say("! \(lines) to \(await name(peer)) did not arrive (it left before reading them)")
            for message in messages.prefix(5) { say("!   \(DisplayText.sanitized(bytes: message, limit: 200))") }
        case .pairingPaused(let pause):
            say("! \(pause)")
        case .addressUnreachable(let address, let error):
            say("! \(DirectAddressText.unreachable(address, error))")
        case .peerError(let peer?, let failure) where failure.code == .autoConnectFailed:
            say("! could not connect to \(await name(peer)): \(failure.underlying ?? failure)")
        case .pairedByLink(let peer, let device):
            say("* paired with \(await name(peer)) (\(device.shortID)) by the pairing link: verified")
        case .peerError(let peer, let error):
            let who = if let peer { await name(peer) } else { "session" }
            say("! \(who): \(error)")
        case .transferOffered(let transfer):
            await session.declineTransfer(transfer, reason: "chat does not take files; use huddle receive")
        case .stateChanged, .transferProgress, .transferFinished, .transferReceivedData, .transferFailed:
            break
        }
    }

    /// Shows the request and its question when no other question is on screen; answers it when answered.
    func ask(_ request: PeerConnectionRequest) {
        let (session, prompter, say) = (self.session, self.prompter, self.say)
        if request.mayBeAutoAccepted(autoAccept) {
            for line in request.question + ["* accepting (--yes)"] { say(line) }
            Task { await session.accept(request) }
            return
        }
        Task {
            switch await request.decide(autoAccept: false, prompter: prompter) {
            case true?:
                await session.accept(request)
                say("* accepted \(request.displayName)")
            case false?:
                await session.deny(request)
                say("* refused \(request.displayName)")
            case nil:
                break  // the request ended first (said when it did)
            }
        }
    }

    /// Carries out a typed line; false to leave.
    @discardableResult package func handle(_ input: ChatInput) async -> Bool {
        switch input {
        case .nothing:
            break
        case .quit:
            return false
        case .lookAt(let address):
            say(await PeerAddressInput.add(address, to: session))
        case .connect(let wanted):
            await connect(named: wanted)
        case .listPeers:
            for state in PeerState.allCases {
                for peer in await session.peers(in: state) {
                    let lobby = await session.info(for: peer)?.lobby ?? PeerLobby()
                    say("  \(await name(peer)) — \(state.rawValue)\(lobby.isEmpty ? "" : " [\(lobby)]")")
                }
            }
        case .setLobby(let entry):
            var lobby = await session.lobby
            do {
                try lobby.apply(entry)
                try await session.setLobby(lobby)
                say("* advertising: \(lobby.isEmpty ? "no lobby" : lobby.description)")
            } catch {
                say("! \(error)")
            }
        case .say(let line):
            let peers = await session.peers(in: .connected)
            guard !peers.isEmpty else {
                say("(nobody is connected yet)")
                return true
            }
            await outbox.send(Array(line.utf8), to: peers)
        }
        return true
    }

    /// Dials the available peer called `wanted`, saying so when there is none or the dial fails.
    func connect(named wanted: String) async {
        var target: PeerID?
        for peer in await session.peers(in: .available) where await name(peer) == wanted { target = peer }
        guard let target else { return say("! no available peer is called \(wanted)") }
        let (session, say) = (self.session, self.say)
        Task {
            do {
                try await session.connect(to: target, timeout: .seconds(120))
            } catch {
                say("! could not connect to \(wanted): \(error)")
            }
        }
    }
}
