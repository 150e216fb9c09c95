import Foundation
import Huddle
import HuddleApp
import HuddleForeign
import HuddlePasteboard

/// How many transfers `huddle receive` has taken, across protocols; it stops at `--count`.
actor ReceiveTally {
    let limit: Int?
    var received = 0

    init(limit: Int?) { self.limit = limit }

    /// Counts one; true when the limit is reached.
    func add() -> Bool {
        received += 1
        return limit.map { received >= $0 } ?? false
    }
}

/// `huddle receive` for one foreign protocol: its offers asked like Huddle's (or taken with --yes), its files
/// and texts reported.
struct ForeignReceiving {
    let service: any ForeignPeerService
    let foreign: ForeignPeers
    let directory: URL
    let reporter: ProgressReporter
    let json: Bool
    let autoAccept: Bool
    /// Where texts also go (`--clipboard`).
    let pasteboard: (any GeneralPasteboard)?

    func run(tally: ReceiveTally) async {
        for await event in service.events {
            switch event {
            case .offered(let offer):
                Task { await ask(offer) }
            case .progress(let progress):
                reporter.show(progress)
            case .received(let offerID, _, let url):
                reporter.result(
                    "received",
                    [
                        "path": url.path, "files": 1, "directory": false, "id": offerID,
                        "protocol": service.protocolName.rawValue,
                    ],
                    text: "received \(url.path)"
                )
                if await tally.add() { return }
            case .textReceived(let text, let peer):
                let shown = text.unicodeScalars.map { scalar in
                    scalar == "\n" || scalar == "\t" || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
                        ? String(scalar) : "\u{FFFD}"
                }.joined()
                reporter.result(
                    "text",
                    ["text": text, "from": peer.name, "protocol": peer.protocol.rawValue],
                    text: "text from \(peer.name) (\(peer.identityText), not verified):\n\(shown)"
                )
                if let pasteboard {
                    do {
                        try await pasteboard.keep(PasteboardItem(text: text), in: .clipboard)
                        reporter.result("clipboard", ["from": peer.name], text: "(on the clipboard)")
                    } catch {
                        Output.error("the text could not be put on the clipboard: \(error)")
                    }
                }
                if await tally.add() { return }
            case .failed(let offerID, let reason):
                if json { reporter.result("failed", ["id": offerID, "error": reason], text: "") }
                Output.error(reason)
            case .fingerprintChanged(let peer, let pinned):
                Output.error(ForeignTrustText.changed(peer, pinned: pinned))
            case .pairingRequested(let peer, let key):
                Task { await askToPair(peer, key: key) }
            case .paired(let peer):
                reporter.result(
                    "paired",
                    [
                        "from": peer.name, "protocol": peer.protocol.rawValue,
                        "fingerprint": peer.fingerprint ?? "",
                    ],
                    text: "* paired with \(peer.protocol.rawValue) device \(peer.name)"
                )
            case .pairingEnded(let peer, let reason):
                reporter.result(
                    "pairingEnded",
                    ["from": peer.name, "protocol": peer.protocol.rawValue, "reason": reason],
                    text: "* \(peer.name): \(reason)"
                )
            case .found, .downloadRequested, .downloaded, .pairingStarted, .pairingConfirmation, .clipboardReceived:
                continue
            }
        }
    }

    func askToPair(_ peer: ForeignPeer, key: String) async {
        await ForeignPairingQuestion(service: service, foreign: foreign, json: json, autoAccept: autoAccept)
            .ask(peer, key: key)
    }

    func ask(_ offer: ForeignOffer) async {
        if let text = offer.text { return await askText(offer, text) }
        let from = offer.from
        let what =
            offer.files.count == 1
            ? "\(offer.files[0].name) (\(offer.files[0].size) bytes)"
            : "\(offer.files.count) files (\(offer.totalSize) bytes)"
        let fields: [String: Any] = [
            "event": "offer", "name": offer.files.first?.name ?? "", "size": offer.totalSize, "from": from.name,
            "files": offer.files.count, "directory": false, "id": offer.id, "protocol": from.protocol.rawValue,
            "fingerprint": from.fingerprint ?? "", "names": offer.files.map(\.name),
        ]
        let trust = foreign.trust(of: from)
        let question =
            json
            ? Output.jsonText(fields).map { [$0] } ?? []
            : offer.fileLines + [
                "? \(what) from \(from.name) (\(from.identityText), \(Self.state(trust ?? .unpinned))). Accept? [y/n]"
            ]
        await answer(offer, asking: question, trust: trust)
    }

    /// Asks `question` about `offer` (after the certificate warning, when the sender's certificate changed),
    /// pins the sender when the user takes it, and answers the service.
    func answer(
        _ offer: ForeignOffer,
        asking question: [String],
        trust: ForeignTrust?,
        pinnedNeedsNoQuestion: Bool = false
    ) async {
        var question = question
        if case .changed(let pinned) = trust {
            question.insert(ForeignTrustText.changed(offer.from, pinned: pinned.fingerprint), at: 0)
        }
        let yes = await ForeignPairingQuestion.confirm(
            question,
            trust: trust,
            peer: offer.from,
            autoAccept: autoAccept,
            json: json,
            pinnedNeedsNoQuestion: pinnedNeedsNoQuestion
        )
        if yes, trust?.isPinned == false { foreign.pinAfterUse(offer.from) }
        await service.answer(offer, with: yes ? .accept(into: directory) : .decline)
    }

    /// A text (LocalSend) is asked like files, showing its start, unless its sender's certificate is pinned; it is
    /// shown in full, and put on the clipboard with `--clipboard`, only once taken (``ForeignEvent/textReceived``).
    func askText(_ offer: ForeignOffer, _ text: String) async {
        let from = offer.from
        let trust = foreign.trust(of: from)
        let fields: [String: Any] = [
            "event": "offer", "text": true, "size": text.utf8.count, "from": from.name, "files": 0,
            "directory": false, "id": offer.id, "protocol": from.protocol.rawValue,
            "fingerprint": from.fingerprint ?? "", "clipboard": pasteboard != nil,
        ]
        let target = pasteboard == nil ? "" : " for the clipboard"
        let question =
            json
            ? Output.jsonText(fields).map { [$0] } ?? []
            : [
                "? a text\(target) (\(text.utf8.count) bytes: \"\(DisplayText.sanitized(text, limit: 48))\") from "
                    + "\(from.name) (\(from.identityText), \(Self.state(trust ?? .unpinned))). Take it? [y/n]"
            ]
        await answer(offer, asking: question, trust: trust, pinnedNeedsNoQuestion: true)
    }
}

/// A device asks to pair: the user compares the verification key both screens show (`--yes` pairs without
/// comparing: pinned on first use, never when its certificate changed).
struct ForeignPairingQuestion {
    let service: any ForeignPeerService
    let foreign: ForeignPeers
    let json: Bool
    let autoAccept: Bool

    func ask(_ peer: ForeignPeer, key: String) async {
        let text =
            "? \(peer.protocol.rawValue) device \"\(peer.name)\" asks to pair. Verification key: \(key) — check the "
            + "other screen shows the same. [y/n]"
        await ask(question("pairRequest", peer, key: key, text: text), of: peer)
    }

    /// The question in the command's form: one JSON object (`event`, the device and the key) or `text`.
    func question(_ event: String, _ peer: ForeignPeer, key: String, text: String) -> [String] {
        let fields: [String: Any] = [
            "event": event, "from": peer.name, "protocol": peer.protocol.rawValue, "verificationKey": key,
            "fingerprint": peer.fingerprint ?? "",
        ]
        return json ? Output.jsonText(fields).map { [$0] } ?? [] : [text]
    }

    /// Asks `question` (after the certificate warning, when the device's certificate changed) and answers the
    /// service with the user's word.
    func ask(_ question: [String], of peer: ForeignPeer) async {
        let trust = foreign.trust(of: peer)
        var lines = question
        if case .changed(let pinned)? = trust, !json {
            lines.insert(ForeignTrustText.changed(peer, pinned: pinned.fingerprint), at: 0)
        }
        service.answerPairing(
            peer,
            accept: await Self.confirm(lines, trust: trust, peer: peer, autoAccept: autoAccept, json: json)
        )
    }

    /// The device accepted this device's request to pair: the user confirms it shows the same key (`--yes`
    /// confirms without comparing: trust on first use, never for a device whose certificate changed).
    func confirmKey(_ peer: ForeignPeer, key: String) async {
        let text =
            "? \(peer.protocol.rawValue) device \"\(peer.name)\" accepted. Does it show verification key \(key)? [y/n]"
        await ask(question("pairConfirm", peer, key: key, text: text), of: peer)
    }

    /// Asks `question`, or with `--yes` prints it and says yes (``ForeignConsent``): to unpinned devices with a
    /// certificate too (which then get pinned), never to one without a certificate or whose certificate changed;
    /// refuses when the pins (`trust` nil) cannot be read.
    static func confirm(
        _ question: [String],
        trust: ForeignTrust?,
        peer: ForeignPeer,
        autoAccept: Bool,
        json: Bool,
        pinnedNeedsNoQuestion: Bool = false
    ) async -> Bool {
        let consent = ForeignConsent.decide(
            trust: trust,
            peer: peer,
            assumeYes: autoAccept,
            pinnedNeedsNoQuestion: pinnedNeedsNoQuestion
        )
        switch consent {
        case .ask:
            return await Prompter.standard.confirm(question, numbered: !json, asker: asker(peer, trust: trust))
        case .yesWithoutAsking:
            if autoAccept { for line in question { Output.line(line) } }
            return true
        case .refuse(let reason):
            Output.error("\(peer.name): refused without asking: \(reason)")
            return false
        }
    }
}

extension ForeignPairingQuestion {
    /// Who asks, for the prompt queue (``PromptQueueRule``): the device's address (however many devices it says it
    /// is), known when its certificate is pinned.
    static func asker(_ peer: ForeignPeer, trust: ForeignTrust?) -> PromptQueueRule.Asker {
        let host = peer.address.lastIndex(of: ":").map { String(peer.address[..<$0]) } ?? peer.address
        return PromptQueueRule.Asker(source: host, isKnown: trust?.isPinned == true)
    }
}

extension ForeignReceiving {
    /// The trust in one word, for JSON: pinned, unpinned or changed.
    static func trustWord(_ trust: ForeignTrust) -> String {
        switch trust {
        case .pinned: "pinned"
        case .unpinned: "unpinned"
        case .changed: "changed"
        }
    }

    static func state(_ trust: ForeignTrust) -> String {
        switch trust {
        case .pinned: "pinned on first use, not verified"
        case .unpinned: "not pinned, not verified"
        case .changed: "CERTIFICATE CHANGED"
        }
    }
}

extension ForeignTrust {
    var isChanged: Bool {
        if case .changed = self { return true }
        return false
    }

    var isPinned: Bool {
        if case .pinned = self { return true }
        return false
    }
}

/// What the user is told about a foreign peer's identity.
enum ForeignTrustText {
    static func changed(_ peer: ForeignPeer, pinned: String) -> String {
        guard peer.fingerprint != nil else {
            return "WARNING: the \(peer.protocol.rawValue) device \(peer.name) shows no certificate, but fingerprint "
                + "\(pinned.prefix(16))… is pinned for that name: it may be another device posing as it. Nothing is "
                + "sent to or taken from it without asking."
        }
        return "WARNING: the \(peer.protocol.rawValue) device \(peer.name) now shows fingerprint "
            + "\(peer.fingerprint?.prefix(16) ?? "none")…, not the \(pinned.prefix(16))… pinned for it: it may be "
            + "another device posing as it. Nothing is sent to or taken from it without asking."
    }
}
