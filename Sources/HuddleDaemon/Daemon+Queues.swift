import Foundation
import HuddleApp

extension Daemon {
    /// `huddle answer`: the questions waiting.
    func listQuestions(_ replies: ControlReplies) async -> Int32 {
        let waiting = await questions.questions
        if waiting.isEmpty { await replies.line("No question waits.") }
        for question in waiting {
            for (index, line) in question.lines.enumerated() {
                await replies.line((index == 0 ? "\(question.id): " : "   ") + line)
            }
        }
        return ExitStatus.success.rawValue
    }

    /// `huddle answer N yes|no`.
    func answer(_ request: ControlRequest, _ replies: ControlReplies) async -> Int32 {
        guard let id = request.question, let accept = request.accept else {
            await replies.error("say which question and yes or no")
            return ExitStatus.usage.rawValue
        }
        guard await questions.answer(id, accept: accept) else {
            await replies.error("no question \(id) waits (answered, expired, or never asked)")
            return ExitStatus.usage.rawValue
        }
        await replies.line("answered \(id): \(accept ? "yes" : "no")")
        return ExitStatus.success.rawValue
    }
}
