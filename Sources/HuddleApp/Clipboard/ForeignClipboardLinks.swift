import Huddle
public import HuddleClipboard
public import HuddleForeign

/// `clip sync` with KDE Connect devices: each paired device's clipboard is kept in step through this machine,
/// text only (docs/kdeconnect.md, "Clipboard"). Pairing is asked like `huddle receive` asks (``ForeignQuestions``);
/// files and texts shared on purpose are declined (they are for `huddle receive`). The daemon follows only the
/// clipboard's events with it (``runBesideInbox()``).
public struct ForeignClipboardLinks: Sendable {
    /// Something to tell the user about a device: the event's name (as in JSON), its line, and whether it tells of
    /// something refused or lost.
    public struct Note: Sendable, Equatable {
        public var event: String
        public var peer: ForeignPeer
        public var line: String
        public var isRefusal: Bool

        /// The note's JSON record.
        public var record: ClipDeviceRecord { ClipDeviceRecord(event, peer) }
    }

    let service: any ForeignClipboardService
    let sync: ClipboardSync
    /// Where pairing requests are asked, when this follows all of the service's events (``run()``).
    let questions: ForeignQuestions?
    let note: @Sendable (Note) -> Void

    public init(
        service: any ForeignClipboardService,
        sync: ClipboardSync,
        questions: ForeignQuestions?,
        note: @escaping @Sendable (Note) -> Void
    ) {
        self.service = service
        self.sync = sync
        self.questions = questions
        self.note = note
    }

    /// Follows the service's events until it stops: the clipboard's, and the rest as `clip sync` answers them.
    public func run() async {
        for await event in service.events {
            if await followClipboard(event) { continue }
            switch event {
            case .pairingRequested(let peer, let key):
                guard let questions else { continue }
                let service = self.service
                Task { await questions.answerPairing(peer, key: key, accepted: false, via: service) }
            case .fingerprintChanged(let peer, let pinned):
                tell("fingerprintChanged", peer, ForeignTrustText.changed(peer, pinned: pinned), isRefusal: true)
            case .offered(let offer):
                await service.answer(offer, with: .decline)
                let what = offer.text == nil ? "\(offer.files.count) file(s)" : "a text"
                let line = "! declined \(what) from \(offer.from.name): use huddle receive to take files and texts"
                tell("offer-declined", offer.from, line, isRefusal: true)
            case .textReceived(_, let peer):
                let line = "! \(peer.name) shared a text on purpose: use huddle receive --clipboard to take it"
                tell("text-ignored", peer, line, isRefusal: true)
            default:
                continue
            }
        }
    }

    /// Follows only the clipboard's part of the service's events (a device found or paired, its copies, a pairing
    /// ended) until it stops: for the daemon, whose inbox answers the rest — pairing requests, offers, texts.
    public func runBesideInbox() async {
        for await event in service.events { _ = await followClipboard(event) }
    }

    /// Acts on an event about the device's clipboard; false for any other.
    func followClipboard(_ event: ForeignEvent) async -> Bool {
        switch event {
        case .found(let peer):
            guard service.sharesClipboard(with: peer) else { return true }
            tell("connected", peer, "+ \(peer.name) (\(peer.identityText)) connected")
            await link(peer)
        case .paired(let peer):
            tell("paired", peer, "* paired with \(peer.protocol.rawValue) device \(peer.name)")
            await link(peer)
        case .clipboardReceived(let text, let peer, let copiedAt):
            await sync.linkedClipboardChanged(text, copiedAt: copiedAt, from: peer.id.description)
        case .pairingEnded(let peer, let reason):
            await sync.unlinkClipboard(peer.id.description)
            tell("pairingEnded", peer, "- \(peer.name): \(reason)", isRefusal: true)
        default:
            return false
        }
        return true
    }

    func tell(_ event: String, _ peer: ForeignPeer, _ line: String, isRefusal: Bool = false) {
        note(Note(event: event, peer: peer, line: line, isRefusal: isRefusal))
    }

    /// From now on the device's clipboard follows this one, and its copies come here.
    func link(_ peer: ForeignPeer) async {
        let service = self.service
        await sync.linkClipboard(peer.id.description, name: peer.name) { text, copiedAt in
            service.setClipboard(text, copiedAt: copiedAt, on: peer)
        }
    }
}
