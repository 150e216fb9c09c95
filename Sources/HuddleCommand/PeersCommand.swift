import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleForeign
import HuddleLocalSend
import HuddleTransport
import HuddleWire

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
        let session = try await options.startSession(mode: mode.mode)
        let foreign = try foreignOptions.services(options: options, takesOffers: false)
        let picker = PeerPicker(session: session, json: json, autoAccept: options.yes, foreign: foreign)
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

/// The live list: numbered peers and their states. Requests are asked through the process's one ``Prompter``,
/// one on screen at a time; the lines that answer none are the picker's.
actor PeerPicker {
    let session: PeerSession
    let json: Bool
    let autoAccept: Bool
    let prompter = Prompter.standard
    let foreign: ForeignPeers?
    var roster = PeerRoster()

    init(
        session: PeerSession,
        json: Bool,
        autoAccept: Bool,
        foreign: ForeignPeers? = nil
    ) {
        self.session = session
        self.json = json
        self.autoAccept = autoAccept
        self.foreign = foreign
    }

    /// A foreign protocol's devices, shown apart from the session's peers (never taken for one).
    func followForeign(_ service: any ForeignPeerService) async {
        for await event in service.events {
            if case .pairingRequested(let peer, let key) = event, let foreign {
                let questions = InboxPrinter(reporter: ProgressReporter(json: json), json: json, assumeYes: autoAccept)
                    .questions(foreign)
                Task { await questions.answerPairing(peer, key: key, accepted: false, via: service) }
                continue
            }
            if case .paired(let peer) = event {
                if json {
                    Output.json(NamedDeviceRecord.paired(peer))
                } else {
                    Output.line("* paired with \(peer.protocol.rawValue) device \(peer.name)")
                }
                continue
            }
            guard case .found(let peer) = event, !peer.isHuddle else {
                continue
            }
            roster.found(peer)
            let trust = foreign?.trust(of: peer) ?? .unpinned
            if json {
                Output.json(DeviceFoundRecord(peer, trust: trust))
            } else {
                if case .changed(let pinned) = trust {
                    Output.line("! " + ForeignTrustText.changed(peer, pinned: pinned.fingerprint))
                }
                await printList()
            }
        }
    }

    func followEvents() async {
        for await event in session.events { await handle(event) }
    }

    func readInput() async {
        for await line in await prompter.unclaimedLines() {
            if await !handle(line: line.trimmingCharacters(in: .whitespaces)) { return }
        }
    }

    func handle(_ event: PeerSessionEvent) async {
        switch event {
        case .peerFound(let info):
            roster.found(info.id)
            if json { Output.json(PeerFoundRecord(info)) }
        case .stateChanged(let peer, let state):
            if json {
                Output.json(PeerEventRecord.state(state, of: peer))
            } else {
                await printList()
            }
        case .connectionRequest(let request):
            // Shown when its question comes up (with JSON too: a request event, then y or n answers it).
            let lines: [String]
            if json {
                lines = Output.jsonLines(ConnectionRequestRecord(request))
            } else {
                lines = request.question
            }
            if request.mayBeAutoAccepted(autoAccept) {
                for line in lines { Output.line(line) }
                await session.accept(request)
                return
            }
            let (session, prompter, json) = (self.session, self.prompter, self.json)
            Task {
                switch await request.decide(lines, autoAccept: false, prompter: prompter, numbered: !json) {
                case true?: await session.accept(request)
                case false?: await session.deny(request)
                case nil: break  // the request ended first
                }
            }
        case .connectionRequestEnded(let id, let error):
            let note = json ? nil : "* request ended: \(error)"
            if await !prompter.withdraw(key: "\(id)", note: note), let note { Output.line(note) }
        case .pairingPaused, .addressUnreachable, .pairedByLink, .peerError:
            if let (line, record) = event.notice { json ? Output.json(record) : Output.line(line) }
        case .received, .undelivered, .transferOffered, .transferProgress, .transferFinished, .transferReceivedData,
            .transferFailed:
            break
        }
    }

    func printList() async {
        let foreign = self.foreign
        for line in await roster.lines(of: session, trust: { foreign?.trust(of: $0) ?? .unpinned }) {
            Output.line(line)
        }
    }

    func handle(line: String) async -> Bool {
        if line == "/quit" { return false }
        if case .lookAt(let address) = ChatInput(line) {
            Output.line(await PeerAddressInput.add(address, to: session))
            return true
        }
        guard let peer = roster.peer(picked: line) else {
            if !line.isEmpty {
                Output.line("(type a peer's number, y/n to answer a request, /peer HOST[:PORT], or /quit)")
            }
            return true
        }
        let session = self.session
        Task {
            do {
                try await session.connect(to: peer, timeout: .seconds(120))
            } catch {
                Output.line("! could not connect: \(error)")
            }
        }
        return true
    }
}
