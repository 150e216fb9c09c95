import Foundation
import Huddle
import HuddleApp
import HuddleForeign

/// How `receive` shows an inbox's questions and events (and `send` and `peers` a device's request to pair): lines,
/// or one JSON object each with --json. The rules are the inbox's (``Inbox``, ``ForeignQuestions``); the words
/// are here.
struct InboxPrinter: Sendable {
    let reporter: ProgressReporter
    let json: Bool
    /// --yes: a question settled without asking is still printed, for the log and for scripts.
    let assumeYes: Bool
    /// Whether a text also goes to the clipboard (said in its question).
    var toClipboard = false
    var prompter = Prompter.standard

    /// The foreign questions asked and reported here.
    func questions(_ foreign: ForeignPeers) -> ForeignQuestions {
        ForeignQuestions(foreign: foreign, assumeYes: assumeYes, ask: ask, report: show)
    }

    /// Asks the person (a connection request answers itself under --yes).
    func ask(_ question: InboxQuestion) async -> Bool {
        if case .connection(let request) = question {
            return await request.answer(autoAccept: assumeYes, prompter: prompter)
        }
        return await prompter.confirm(lines(question), numbered: !json, asker: asker(question))
    }

    /// The question: one JSON object, or its words (after the warning, when a device's certificate changed).
    func lines(_ question: InboxQuestion) -> [String] {
        switch question {
        case .connection(let request):
            return request.question
        case .transfer(let transfer, let from):
            if json { return Output.jsonLines(OfferRecord(transfer, from: from)) }
            let what =
                transfer.isDirectory
                ? "directory \(transfer.name)/ (\(transfer.fileCount) files, \(transfer.size) bytes)"
                : "\(transfer.name) (\(transfer.size) bytes)"
            return ["? \(what) from \(from). Accept? [y/n]"]
        case .offer(let offer, let trust):
            var lines = json ? Output.jsonLines(OfferRecord(offer, clipboard: toClipboard)) : words(offer, trust)
            if case .changed(let pinned)? = trust {
                lines.insert(ForeignTrustText.changed(offer.from, pinned: pinned.fingerprint), at: 0)
            }
            return lines
        case .pairing(let peer, let key, let trust, let accepted):
            if json {
                return Output.jsonLines(PairingQuestionRecord(accepted ? "pairConfirm" : "pairRequest", peer, key: key))
            }
            let device = "\(peer.protocol.rawValue) device \"\(peer.name)\""
            let text =
                accepted
                ? "? \(device) accepted. Does it show verification key \(key)? [y/n]"
                : "? \(device) asks to pair. Verification key: \(key) — check the other screen shows the same. [y/n]"
            guard case .changed(let pinned)? = trust else { return [text] }
            return [ForeignTrustText.changed(peer, pinned: pinned.fingerprint), text]
        }
    }

    /// A device's offer in words: every file listed, or the start of its text.
    func words(_ offer: ForeignOffer, _ trust: ForeignTrust?) -> [String] {
        let from = offer.from
        let who = "\(from.name) (\(from.identityText), \((trust ?? .unpinned).phrase))"
        if let text = offer.text {
            let target = toClipboard ? " for the clipboard" : ""
            let start = DisplayText.sanitized(text, limit: 48)
            return ["? a text\(target) (\(text.utf8.count) bytes: \"\(start)\") from \(who). Take it? [y/n]"]
        }
        let what =
            offer.files.count == 1
            ? "\(offer.files[0].name) (\(offer.files[0].size) bytes)"
            : "\(offer.files.count) files (\(offer.totalSize) bytes)"
        return offer.fileLines + ["? \(what) from \(who). Accept? [y/n]"]
    }

    /// Who asks, for the prompt queue (``PromptQueueRule``): a device by its address (however many devices it says
    /// it is), known when its certificate is pinned; a Huddle offer is the user's own queue's.
    func asker(_ question: InboxQuestion) -> PromptQueueRule.Asker {
        let (peer, trust): (ForeignPeer, ForeignTrust?)
        switch question {
        case .offer(let offer, let offerTrust): (peer, trust) = (offer.from, offerTrust)
        case .pairing(let device, _, let deviceTrust, _): (peer, trust) = (device, deviceTrust)
        case .connection, .transfer: return .user
        }
        let host = peer.address.lastIndex(of: ":").map { String(peer.address[..<$0]) } ?? peer.address
        return PromptQueueRule.Asker(source: host, isKnown: trust?.isPinned == true)
    }

    func show(_ event: InboxEvent) {
        switch event {
        case .settled(let question, .takenWithoutAsking):
            if assumeYes { for line in lines(question) { Output.line(line) } }
        case .settled(.transfer(let transfer, let from), .refused):
            Output.error(
                "declined directory \(transfer.name)/ from \(from): its name is hidden (give --allow-hidden to take it)"
            )
        case .settled(let question, .refused(let refusal)):
            Output.error("\(Self.asker(of: question)): refused without asking: \(refusal)")
        case .progress(let progress):
            reporter.show(progress)
        case .foreignProgress(let progress):
            reporter.show(progress)
        case .received(let record):
            let directory = "received \(record.path)/ (\(record.files) files, all verified)"
            reporter.result(record, text: record.directory ? directory : "received \(record.path)")
        case .text(let record, let peer):
            reporter.result(
                record,
                text: "text from \(peer.name) (\(peer.identityText), not verified):\n\(Self.shown(record.text))"
            )
        case .onClipboard(let peer):
            reporter.result(DeviceRecord.textOnClipboard(from: peer), text: "(on the clipboard)")
        case .notOnClipboard(let error):
            Output.error("the text could not be put on the clipboard: \(error)")
        case .failed(let record):
            if json { Output.json(record) }
            Output.error(record.error)
        case .notTaken(let error), .pinsUnreadable(let error):
            Output.error(error)
        case .fingerprintChanged(let peer, let pinned):
            Output.error(ForeignTrustText.changed(peer, pinned: pinned))
        case .pinned(let peer):
            Output.line(ForeignTrustText.pinned(peer))
        case .notPinned(let peer, let error):
            Output.error("could not pin \(peer.name): \(error)")
        case .paired(let peer):
            reporter.result(
                DeviceRecord.paired(peer),
                text: "* paired with \(peer.protocol.rawValue) device \(peer.name)"
            )
        case .pairingEnded(let peer, let reason):
            reporter.result(DeviceRecord.pairingEnded(peer, reason: reason), text: "* \(peer.name): \(reason)")
        case .pairingPaused(let pause):
            Output.error("\(pause)")
        }
    }

    /// The name of who put a question.
    static func asker(of question: InboxQuestion) -> String {
        switch question {
        case .connection(let request): request.displayName
        case .transfer(_, let from): from
        case .offer(let offer, _): offer.from.name
        case .pairing(let peer, _, _, _): peer.name
        }
    }

    /// A text as printed in full: lines and tabs kept, other control characters shown as �.
    static func shown(_ text: String) -> String {
        text.unicodeScalars.map { scalar in
            scalar == "\n" || scalar == "\t" || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
                ? String(scalar) : "\u{FFFD}"
        }.joined()
    }
}
