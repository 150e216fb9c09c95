public import Foundation
public import Huddle
import HuddleForeign
import HuddleWire

/// Receiving on every protocol at once: the session's offers and connection requests, and the offers, texts and
/// pairing requests of LocalSend and KDE Connect devices. Each question is settled by the rules or asked of a
/// person (`ask`), what is taken goes into one directory, and everything is reported (`report`) (docs/design.md,
/// "Receiving").
public struct Inbox: Sendable {
    public let session: PeerSession
    /// Where files and directories go.
    public let directory: URL
    /// The foreign services, the person's answers (`ask`: only what the rules leave to a person, and every
    /// connection request) and where events go (`report`); its `assumeYes` takes Huddle offers without asking too.
    public let questions: ForeignQuestions
    /// Take a Huddle directory whose name is hidden (`.ssh`) too.
    public var allowsHidden = false
    /// Puts a device's text on the clipboard too, when set (the caller knows how to keep it there).
    public var clipboard: (@Sendable (String) async throws -> Void)?
    /// Stop after this many transfers (a directory or a text counts once); nil: until the events end.
    public var limit: Int?

    /// The session's events, subscribed when the inbox is made: an offer that comes before ``run()`` starts waits.
    let events: PeerSessionEvents

    /// - Parameter events: the session's events, when the caller subscribed before (the session's first
    ///   subscriber also gets what happened before it subscribed); default: subscribed now.
    public init(
        session: PeerSession,
        directory: URL,
        questions: ForeignQuestions,
        events: PeerSessionEvents? = nil
    ) {
        self.session = session
        self.directory = directory
        self.questions = questions
        self.events = events ?? session.events
    }

    var ask: @Sendable (InboxQuestion) async -> Bool { questions.ask }
    var report: @Sendable (InboxEvent) -> Void { questions.report }

    /// Receives until the limit is reached or the session's events end.
    public func run() async {
        let tally = InboxTally(limit: limit)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await receiveFromSession(tally) }
            for service in questions.foreign.services {
                group.addTask { await receive(from: service, tally) }
            }
            // The first loop to end (the limit reached, or the session's events over) ends the others.
            _ = await group.next()
            group.cancelAll()
        }
    }

    func receiveFromSession(_ tally: InboxTally) async {
        var offered: [TransferID: IncomingTransfer] = [:]
        for await event in events {
            switch event {
            case .connectionRequest(let request):
                if await ask(.connection(request)) {
                    await session.accept(request)
                } else {
                    await session.deny(request)
                }
            case .transferOffered(let transfer):
                offered[transfer.id] = transfer
                await answer(transfer)
            case .transferProgress(let progress):
                report(.progress(progress))
            case .transferFinished(let id, _, let url):
                let transfer = offered.removeValue(forKey: id)
                let record = ReceivedRecord(
                    id: "\(id)",
                    path: url.path,
                    files: transfer?.fileCount ?? 1,
                    directory: transfer?.isDirectory == true
                )
                report(.received(record))
                if await tally.add() { return }
            case .transferFailed(let id, _, let error):
                offered[id] = nil
                report(.failed(FailedRecord(id: "\(id)", error: "\(error)")))
            case .pairingPaused(let pause):
                report(.pairingPaused(pause))
            default:
                continue
            }
        }
    }

    /// A Huddle offer: a hidden directory refused (unless allowed), taken under `assumeYes`, else asked.
    func answer(_ transfer: IncomingTransfer) async {
        let from = await session.displayName(for: transfer.peer) ?? "?"
        let question = InboxQuestion.transfer(transfer, from: from)
        let take: Bool
        if transfer.isDirectory, HiddenNames.refusesDirectory(named: transfer.name, allowHidden: allowsHidden) {
            report(.settled(question, .refused(.hiddenDirectory)))
            take = false
        } else if questions.assumeYes {
            report(.settled(question, .takenWithoutAsking))
            take = true
        } else {
            take = await ask(question)
        }
        guard take else { return await session.declineTransfer(transfer) }
        do {
            try await session.acceptTransfer(transfer, into: directory)
        } catch {
            report(.notTaken(error: "\(error)"))
        }
    }
}
