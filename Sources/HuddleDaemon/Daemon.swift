public import Foundation
public import Huddle
public import HuddleApp
public import HuddleForeign
import HuddleTransport
import HuddleWire

/// One user's presence, always there (docs/daemon.md): the session and the foreign services the caller started,
/// receiving into one folder by the accept rules, an outbox that delivers to paired devices when they are back, and
/// the answers to the command line's requests on the control socket.
///
/// The caller runs it in a service group beside the services (``ServiceRunner``); the words shown to people are
/// the caller's (`words`, `report`), the rules are here.
public struct Daemon: Sendable {
    public let session: PeerSession
    public let foreign: ForeignPeers
    /// Where received files go.
    public let directory: URL
    public let outbox: OutboxStore
    /// What was received (`history.json` beside the outbox).
    public let history: HistoryStore
    public var policy = AcceptPolicy()
    /// The pass of the page for a phone, shared with LocalSend's page for browsers (docs/daemon.md, "A phone's
    /// page"); nil when that page is off.
    public var phone: BrowserPasses?
    /// The clipboard sync, when `clip-sync` turns it on (docs/daemon.md, "The clipboard").
    public var clipboard: DaemonClipboard?
    public let questions: PendingQuestions<ContinuousClock>
    /// Where the web page answers, once its server listens (docs/web.md).
    public let page = PageLink()
    /// The pairing link the page shows, when one was issued from it.
    public let pagePairing = PagePairing()
    /// Files waiting for a person to pick their device on the page (`huddle ui FILE…`).
    public let staged = StagedSends()
    /// Words for a question that a person answers (``InboxPrinter``-style), and where everything the inbox and the
    /// outbox do is reported.
    public let words: @Sendable (InboxQuestion) -> [String]
    public let report: @Sendable (InboxEvent) -> Void
    /// A line for the daemon's own log (a queued send delivered, a question waiting).
    public let log: @Sendable (String) -> Void
    /// How long a send looks for a paired device before it queues, when the device is not here already.
    public var pairedLookup: Duration = .seconds(5)
    /// Tells the outbox's courier that the queue grew (it looks at once whether the device is here).
    let courierWake: AsyncStream<Void>.Continuation
    let courierWakes: AsyncStream<Void>
    /// Subscribed when the daemon is made, the inbox first: the session's first subscriber also gets what
    /// happened since it started (an offer from a device that was waiting to dial in).
    let inboxEvents: PeerSessionEvents
    let courierEvents: PeerSessionEvents
    let chatEvents: PeerSessionEvents
    /// The questions as desktop notifications, on the session bus of `DBUS_SESSION_BUS_ADDRESS`.
    let notifier: QuestionNotifier
    /// Whether questions are shown as notifications at all (`notifications = false` in config.toml: never).
    let notifies: Bool
    /// The `huddle chat` commands following the daemon's chat, and the room that speaks to them.
    public let chatListeners = LineListeners()
    let room: ChatRoom

    public init(
        session: PeerSession,
        foreign: ForeignPeers,
        directory: URL,
        outbox: OutboxStore,
        questions: PendingQuestions<ContinuousClock> = PendingQuestions(clock: ContinuousClock()),
        words: @escaping @Sendable (InboxQuestion) -> [String],
        report: @escaping @Sendable (InboxEvent) -> Void,
        log: @escaping @Sendable (String) -> Void,
        sessionBus: String? = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"],
        notifications: Bool = true
    ) {
        self.session = session
        inboxEvents = session.events
        courierEvents = session.events
        chatEvents = session.events
        self.foreign = foreign
        self.directory = directory
        self.outbox = outbox
        history = HistoryStore(file: outbox.file.deletingLastPathComponent().appendingPathComponent("history.json"))
        self.questions = questions
        self.words = words
        self.report = report
        self.log = log
        notifier = QuestionNotifier(address: sessionBus, log: log)
        self.notifies = notifications
        // The room asks nothing (the inbox asks, by the rules): its prompter reads no input.
        let prompter = Prompter(lines: AsyncStream { $0.finish() }, show: { _ in })
        room = ChatRoom(session: session, autoAccept: false, prompter: prompter, say: chatListeners.say)
        (courierWakes, courierWake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Receives and delivers until cancelled.
    public func run() async {
        if let trouble = history.trouble { log(trouble) }
        await withDiscardingTaskGroup { group in
            group.addTask { await inbox().run() }
            group.addTask { await OutboxCourier(daemon: self).run() }
            if notifies { group.addTask { await notifyQuestions() } }
            group.addTask { await followChat() }
            if let clipboard {
                let connections = session.events
                group.addTask { await followClipboard() }
                group.addTask { await connectPairedClipboards(connections) }
                for links in foreignClipboards(clipboard) { group.addTask { await links.runBesideInbox() } }
            }
        }
    }

    /// Answers one request of the command line; returns its exit status.
    public func handle(_ request: ControlRequest, _ replies: ControlReplies) async -> Int32 {
        switch request.command {
        case .status: return await status(replies)
        case .send: return await send(request, replies)
        case .issuePairingLink: return await issuePairingLink(request, replies)
        case .pair: return await pair(request, replies)
        case .outbox, .cancel: return await OutboxDesk.answer(request, store: outbox, replies)
        case .questions: return await listQuestions(request, replies)
        case .answer: return await answer(request, replies)
        case .peers: return await peers(replies)
        case .ui: return await pageLink(request, replies)
        case .phone: return await phoneLinks(request, replies)
        case .chat: return await chat(replies)
        case .say: return await say(request, replies)
        case .clipboard: return await followClipboard(request, replies)
        case .clipReceive: return await receiveClipboard(request, replies)
        case .clipShare: return await shareClipboard(request, replies)
        case .connect: return await connect(request, replies)
        }
    }

    func status(_ replies: ControlReplies) async -> Int32 {
        let here = await Rendezvous(session: session, foreign: foreign).present().map(\.name)
        await replies.line(
            "huddle daemon: \(session.displayName) (\(session.identity.deviceID.shortID)), receiving into "
                + directory.path
        )
        await replies.line("peers here: " + (here.isEmpty ? "none" : here.joined(separator: ", ")))
        await replies.line(
            "outbox: \(outbox.entries.count) queued; questions: \(await questions.questions.count) waiting"
        )
        return ExitStatus.success.rawValue
    }

    /// How a device whose offer comes is known (``AcceptPolicy/Sender``), from the session's trust store.
    func sender(_ device: DeviceID?) -> AcceptPolicy.Sender {
        guard let device, let record = session.trustStore.record(for: device) else { return .stranger }
        switch record.trust {
        case .verified: return .paired
        case .tofu: return .trustedOnFirstUse
        case .blocked: return .stranger
        }
    }

    /// The paired device called `name` (its trust store name, compared without case), when exactly one is.
    func pairedDevice(named name: String) -> TrustRecord? {
        let matches = session.trustStore.records.filter {
            $0.trust == .verified && $0.displayName.caseInsensitiveCompare(name) == .orderedSame
        }
        return matches.count == 1 ? matches[0] : nil
    }
}
