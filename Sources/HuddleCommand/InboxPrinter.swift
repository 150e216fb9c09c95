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
        return await prompter.confirm(lines(question), numbered: !json, asker: text.asker(question))
    }

    /// The question's words (``InboxQuestionText``).
    func lines(_ question: InboxQuestion) -> [String] { text.lines(question) }

    var text: InboxQuestionText { InboxQuestionText(json: json, toClipboard: toClipboard) }

    func show(_ event: InboxEvent) {
        switch event {
        case .settled(let question, .takenWithoutAsking):
            if assumeYes { for line in lines(question) { Output.line(line) } }
        case .settled(.transfer(let transfer, let from), .refused):
            Output.error(
                "declined directory \(transfer.name)/ from \(from): its name is hidden (give --allow-hidden to take it)"
            )
        case .settled(let question, .refused(let refusal)):
            Output.error("\(InboxQuestionText.asker(of: question)): refused without asking: \(refusal)")
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
                text:
                    "text from \(peer.name) (\(peer.identityText), not verified):\n\(InboxQuestionText.shown(record.text))"
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
}
