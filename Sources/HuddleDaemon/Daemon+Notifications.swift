import HuddleApp
import NIOConcurrencyHelpers

extension Daemon {
    /// Puts `question` to a person: it waits in ``PendingQuestions`` for `huddle answer`, and shows as a desktop
    /// notification with Accept and Decline while there is a session bus (``QuestionNotifier``); whichever answers
    /// first settles it, and the notification is closed then.
    func askPerson(_ question: InboxQuestion) async -> Bool {
        let lines = words(question)
        return await askPerson(lines, notice: QuestionNotice(question, lines: lines))
    }

    /// Puts a question in `lines` to a person, as ``askPerson(_:)`` does, `notice` its notification; `asked` learns
    /// its number once it waits.
    func askPerson(
        _ lines: [String],
        notice: QuestionNotice,
        asked told: @escaping @Sendable (Int) -> Void = { _ in }
    ) async -> Bool {
        let asked = NIOLockedValueBox<Int?>(nil)
        let answer = await questions.ask(lines) { [log, notifier] waiting in
            log("question \(waiting.id) waits: huddle answer \(waiting.id) yes (or no)")
            asked.withLockedValue { $0 = waiting.id }
            notifier.show(waiting.id, notice)
            told(waiting.id)
        }
        if let id = asked.withLockedValue({ $0 }) { notifier.settled(id) }
        return answer
    }

    /// Shows the questions as desktop notifications until cancelled (or while the bus is there).
    func notifyQuestions() async {
        await notifier.run { [questions] question, accept in await questions.answer(question, accept: accept) }
    }
}
