import Foundation
import Huddle
import HuddleApp

extension Daemon {
    /// `huddle answer`: the questions waiting.
    func listQuestions(_ request: ControlRequest, _ replies: ControlReplies) async -> Int32 {
        let waiting = await questions.questions
        if request.json == true {
            for question in waiting {
                let record = JSONLine.text(DevicePicker.Question(id: question.id, lines: question.lines))
                await replies.send(ControlReply(record: record))
            }
            return ExitStatus.success.rawValue
        }
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

extension Daemon {
    /// `connect`: the daemon's session connects to the Huddle device `to` names (the peer picker of `huddle peers`);
    /// a device not paired asks to compare the code, a question of the daemon's.
    func connect(_ request: ControlRequest, _ replies: ControlReplies) async -> Int32 {
        guard let name = request.to?.first else {
            await replies.error("connect needs a device's name")
            return ExitStatus.usage.rawValue
        }
        do {
            let peer = try await Rendezvous(session: session).connect(to: name, within: .seconds(30))
            await replies.line("connected to \(await session.displayName(for: peer) ?? name)")
            return ExitStatus.success.rawValue
        } catch {
            await replies.error("\(error)")
            return ExitStatus(for: error).rawValue
        }
    }
}
