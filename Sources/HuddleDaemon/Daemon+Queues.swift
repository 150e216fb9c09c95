import Foundation
import HuddleApp

extension Daemon {
    /// `huddle outbox`: one line per queued path.
    func listOutbox(_ replies: ControlReplies) async -> Int32 {
        for line in OutboxText.lines(outbox.entries) { await replies.line(line) }
        return ExitStatus.success.rawValue
    }

    /// `huddle outbox --cancel ID`.
    func cancel(_ request: ControlRequest, _ replies: ControlReplies) async -> Int32 {
        let id = request.id ?? ""
        do {
            guard try outbox.remove(id) else {
                await replies.error("nothing in the outbox has id \(id) (huddle outbox lists them)")
                return ExitStatus.usage.rawValue
            }
        } catch {
            await replies.error("\(error)")
            return ExitStatus.ioError.rawValue
        }
        await replies.line("cancelled \(id)")
        return ExitStatus.success.rawValue
    }

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
