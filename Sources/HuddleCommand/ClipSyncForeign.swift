import HuddleApp
import HuddleClipboard
import HuddleForeign

/// `huddle clip sync` with KDE Connect devices: each paired device's clipboard is kept in step through this
/// machine, text only (docs/kdeconnect.md, "Clipboard"). Pairing is asked like `huddle receive` asks; files and
/// texts shared on purpose are for `huddle receive`.
struct ClipSyncForeign {
    let service: any ForeignClipboardService
    let foreign: ForeignPeers
    let sync: ClipboardSync
    let log: ClipSyncLog
    let autoAccept: Bool

    func run() async {
        for await event in service.events {
            switch event {
            case .found(let peer):
                guard service.sharesClipboard(with: peer) else { continue }
                log.note("connected", peer, text: "+ \(peer.name) (\(peer.identityText)) connected")
                await link(peer)
            case .paired(let peer):
                log.note("paired", peer, text: "* paired with \(peer.protocol.rawValue) device \(peer.name)")
                await link(peer)
            case .clipboardReceived(let text, let peer, let copiedAt):
                await sync.linkedClipboardChanged(text, copiedAt: copiedAt, from: peer.id.description)
            case .pairingRequested(let peer, let key):
                let printer = InboxPrinter(
                    reporter: ProgressReporter(json: log.json),
                    json: log.json,
                    assumeYes: autoAccept
                )
                Task { await printer.questions(foreign).answerPairing(peer, key: key, accepted: false, via: service) }
            case .pairingEnded(let peer, let reason):
                await sync.unlinkClipboard(peer.id.description)
                log.note("pairingEnded", peer, text: "- \(peer.name): \(reason)", isRefusal: true)
            case .fingerprintChanged(let peer, let pinned):
                log.note(
                    "fingerprintChanged",
                    peer,
                    text: ForeignTrustText.changed(peer, pinned: pinned),
                    isRefusal: true
                )
            case .offered(let offer):
                await service.answer(offer, with: .decline)
                log.note(
                    "offer-declined",
                    offer.from,
                    text:
                        "! declined \(offer.text == nil ? "\(offer.files.count) file(s)" : "a text") from "
                        + "\(offer.from.name): use huddle receive to take files and texts",
                    isRefusal: true
                )
            case .textReceived(_, let peer):
                log.note(
                    "text-ignored",
                    peer,
                    text: "! \(peer.name) shared a text on purpose: use huddle receive --clipboard to take it",
                    isRefusal: true
                )
            case .progress, .received, .failed, .downloadRequested, .downloaded, .pairingStarted, .pairingConfirmation:
                continue
            }
        }
    }

    /// From now on the device's clipboard follows this one, and its copies come here.
    func link(_ peer: ForeignPeer) async {
        let service = self.service
        await sync.linkClipboard(peer.id.description, name: peer.name) { text, copiedAt in
            service.setClipboard(text, copiedAt: copiedAt, on: peer)
        }
    }
}

extension ClipSyncLog {
    /// One line about a foreign device: plain text, or JSON with its name and protocol.
    func note(_ event: String, _ peer: ForeignPeer, text: String, isRefusal: Bool = false) {
        if json {
            Output.json(ClipDeviceRecord(event, peer))
        } else if !quiet || isRefusal {
            Output.line(text)
        }
    }
}
