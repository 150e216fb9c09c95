import Foundation
import Huddle
import HuddleApp
import HuddleForeign
import HuddleWire

extension Daemon {
    /// The inbox of every protocol, its questions settled by ``AcceptPolicy``: what a rule leaves to a person
    /// waits in ``PendingQuestions``.
    func inbox() -> Inbox {
        let questions = ForeignQuestions(foreign: foreign, assumeYes: false, ask: ask, report: reportAndKeep)
        return Inbox(session: session, directory: directory, questions: questions, events: inboxEvents)
    }

    /// An inbox event reported, and what was received kept in the history (docs/daemon.md, "History").
    @Sendable func reportAndKeep(_ event: InboxEvent) {
        report(event)
        let entry: HistoryEntry
        switch event {
        case .received(let record):
            entry = HistoryEntry(
                at: Date(),
                kind: .file,
                protocol: record.protocol ?? "huddle",
                path: record.path,
                files: record.directory ? record.files : nil
            )
        case .text(let record, let peer):
            entry = HistoryEntry(at: Date(), kind: .text, protocol: record.protocol, from: peer.name, text: record.text)
        default: return
        }
        do { try history.add(entry) } catch { log("\(error)") }
    }

    /// A question of the inbox: settled by the rule for its sender, or put to a person.
    @Sendable func ask(_ question: InboxQuestion) async -> Bool {
        switch await rule(for: question) {
        case .accept:
            report(.settled(question, .takenWithoutAsking))
            return true
        case .refuse:
            report(.settled(question, .refused(.byRule)))
            return false
        case .ask:
            return await askPerson(question)
        }
    }

    /// The rule for a question: offers by who sent them; a connection request or a pairing always asks (its code
    /// or key must be compared by a person), unless the rule for strangers refuses.
    func rule(for question: InboxQuestion) async -> AcceptRule {
        switch question {
        case .transfer(let transfer, _):
            let device = await session.info(for: transfer.peer).flatMap { $0.deviceIDVerified ? $0.deviceID : nil }
            return policy.rule(for: device?.description, sender: sender(device))
        case .offer(let offer, let trust):
            let sender: AcceptPolicy.Sender = trust?.isPinned == true ? .trustedOnFirstUse : .stranger
            return policy.rule(for: offer.from.fingerprint, sender: sender)
        case .connection, .pairing:
            return policy.others == .refuse ? .refuse : .ask
        }
    }
}
