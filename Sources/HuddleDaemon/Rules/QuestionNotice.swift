import Huddle
import HuddleApp
import HuddleForeign

/// A waiting question's words for a desktop notification (docs/notifications.md): a summary that says who wants
/// what, the question's lines as the body.
struct QuestionNotice: Sendable, Equatable {
    let summary: String
    let body: String

    init(summary: String, body: String) {
        self.summary = summary
        self.body = body
    }

    init(_ question: InboxQuestion, lines: [String]) {
        let who = InboxQuestionText.asker(of: question)
        let what: String
        switch question {
        case .connection: what = "wants to connect"
        case .transfer(let transfer, _): what = "wants to send \(transfer.name)" + (transfer.isDirectory ? "/" : "")
        case .offer(let offer, _):
            if offer.text != nil {
                what = "wants to send a text"
            } else {
                what =
                    offer.files.count == 1
                    ? "wants to send \(offer.files[0].name)" : "wants to send \(offer.files.count) files"
            }
        case .pairing(_, _, _, let accepted): what = accepted ? "accepted pairing" : "asks to pair"
        }
        summary = "Huddle: \(who) \(what)"
        body = lines.joined(separator: "\n")
    }
}
