import Foundation
public import Huddle
public import HuddleForeign
import HuddleWire

/// The peer picker (`huddle peers`, GameKit's peer picker for today): the live list of numbered peers and their
/// states, a typed number connects. Requests are asked through the process's one ``Prompter``, one on screen at a
/// time; the lines that answer none are the picker's. What it shows goes to ``Screen``: lines, or with `json` one
/// record per event.
public actor PeerPicker {
    /// Where the picker's words go: `line` prints a line as it is (a terminal's controls made visible by the
    /// caller), `record` one JSON object.
    public struct Screen: Sendable {
        public var line: @Sendable (String) -> Void
        public var record: @Sendable (any Encodable & Sendable) -> Void

        public init(
            line: @escaping @Sendable (String) -> Void,
            record: @escaping @Sendable (any Encodable & Sendable) -> Void
        ) {
            self.line = line
            self.record = record
        }
    }

    let session: PeerSession
    let json: Bool
    let autoAccept: Bool
    let prompter: Prompter
    /// The foreign devices' pins, and how a KDE Connect device's request to pair is asked (its verification key
    /// compared).
    let questions: ForeignQuestions?
    let screen: Screen
    var roster = PeerRoster()
    /// Each peer's lobby as last found: the list is shown again when one changes.
    var lobbies: [PeerID: PeerLobby] = [:]

    public init(
        session: PeerSession,
        json: Bool,
        autoAccept: Bool,
        prompter: Prompter,
        questions: ForeignQuestions? = nil,
        screen: Screen
    ) {
        self.session = session
        self.json = json
        self.autoAccept = autoAccept
        self.prompter = prompter
        self.questions = questions
        self.screen = screen
    }

    /// A foreign protocol's devices, shown apart from the session's peers (never taken for one).
    public func followForeign(_ service: any ForeignPeerService) async {
        for await event in service.events {
            if case .pairingRequested(let peer, let key) = event, let questions {
                Task { await questions.answerPairing(peer, key: key, accepted: false, via: service) }
                continue
            }
            if case .paired(let peer) = event {
                if json {
                    screen.record(NamedDeviceRecord.paired(peer))
                } else {
                    screen.line("* paired with \(peer.protocol.rawValue) device \(peer.name)")
                }
                continue
            }
            guard case .found(let peer) = event, !peer.isHuddle else {
                continue
            }
            roster.found(peer)
            let trust = questions?.trust(of: peer) ?? .unpinned
            if json {
                screen.record(DeviceFoundRecord(peer, trust: trust))
            } else {
                if case .changed(let pinned) = trust {
                    screen.line("! " + ForeignTrustText.changed(peer, pinned: pinned.fingerprint))
                }
                await printList()
            }
        }
    }

    /// Shows the session's events until they end; with `json`, also each connected peer's link figures every
    /// `linkInterval` (a `link` record, ``LinkRecord``).
    public func followEvents(linkInterval: Duration = .seconds(2)) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [session] in
                for await event in session.events { await self.handle(event) }
            }
            if json {
                group.addTask { await self.reportLinks(every: linkInterval) }
            }
            _ = await group.next()
            group.cancelAll()
        }
    }

    /// A `link` record of each connected peer, every `interval`, until cancelled.
    func reportLinks(every interval: Duration) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            for peer in await session.peers(in: .connected) {
                guard let statistics = await session.linkStatistics(for: peer) else { continue }
                screen.record(LinkRecord(statistics, of: peer))
            }
        }
    }

    public func readInput() async {
        for await line in await prompter.unclaimedLines() {
            if await !handle(line: line.trimmingCharacters(in: .whitespaces)) { return }
        }
    }

    func handle(_ event: PeerSessionEvent) async {
        switch event {
        case .peerFound(let info):
            roster.found(info.id)
            let lobbyChanged = lobbies.updateValue(info.lobby, forKey: info.id).map { $0 != info.lobby } ?? false
            if json {
                screen.record(PeerFoundRecord(info))
            } else if lobbyChanged {
                await printList()
            }
        case .stateChanged(let peer, let state):
            if json {
                screen.record(PeerEventRecord.state(state, of: peer))
            } else {
                await printList()
            }
        case .connectionRequest(let request):
            // Shown when its question comes up (with JSON too: a request event, then y or n answers it).
            let lines: [String]
            if json {
                lines = JSONLine.text(ConnectionRequestRecord(request)).map { [$0] } ?? []
            } else {
                lines = request.question
            }
            if request.mayBeAutoAccepted(autoAccept) {
                for line in lines { screen.line(line) }
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
            if await !prompter.withdraw(key: "\(id)", note: note), let note { screen.line(note) }
        case .pairingPaused, .addressUnreachable, .pairedByLink, .peerError:
            if let (line, record) = event.notice { json ? screen.record(record) : screen.line(line) }
        case .received, .undelivered, .transferOffered, .transferProgress, .transferFinished, .transferReceivedData,
            .transferFailed:
            break
        }
    }

    func printList() async {
        let questions = self.questions
        for line in await roster.lines(of: session, trust: { questions?.trust(of: $0) ?? .unpinned }) {
            screen.line(line)
        }
    }

    func handle(line: String) async -> Bool {
        if line == "/quit" { return false }
        if case .lookAt(let address) = ChatInput(line) {
            screen.line(await PeerAddressInput.add(address, to: session))
            return true
        }
        guard let peer = roster.peer(picked: line) else {
            if !line.isEmpty {
                screen.line("(type a peer's number, y/n to answer a request, /peer HOST[:PORT], or /quit)")
            }
            return true
        }
        let session = self.session
        Task {
            do {
                try await session.connect(to: peer, timeout: .seconds(120))
            } catch {
                screen.line("! could not connect: \(error)")
            }
        }
        return true
    }
}
