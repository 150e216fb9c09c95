import Foundation
import Huddle
import HuddleApp
import HuddleForeign

/// How `receive` shows an inbox's questions and events (and `send` and `peers` a device's request to pair): lines,
/// or one JSON object each with --json. The rules are the inbox's (``Inbox``, ``ForeignQuestions``); the words
/// are ``InboxEventText``'s.
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
        case .progress(let progress): return reporter.show(progress)
        case .foreignProgress(let progress): return reporter.show(progress)
        default: break
        }
        switch InboxEventText(questions: text, assumeYes: assumeYes).said(event) {
        case .result(let record, let line)?: reporter.result(record, text: line)
        case .error(let line, let record)?:
            if json, let record { Output.json(record) }
            Output.error(line)
        case .line(let line)?: Output.line(line)
        case .lines(let lines)?: for line in lines { Output.line(line) }
        case nil: break
        }
    }
}
