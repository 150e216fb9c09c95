public import Foundation
import Huddle
import HuddleForeign

extension Inbox {
    /// One foreign protocol's offers, texts and pairing requests.
    func receive(from service: any ForeignPeerService, _ tally: InboxTally) async {
        var foreign = ForeignInbox(directory: directory, questions: questions)
        foreign.clipboard = clipboard
        await foreign.receive(from: service, tally)
    }
}

/// Receiving from LocalSend and KDE Connect devices alone, without a session (`huddle share --receive`), or as
/// part of an ``Inbox``: each offer settled by the rules or asked, taken into `directory`, everything reported.
public struct ForeignInbox: Sendable {
    public let directory: URL
    public let questions: ForeignQuestions
    /// Puts a device's text on the clipboard too, when set.
    public var clipboard: (@Sendable (String) async throws -> Void)?

    public init(directory: URL, questions: ForeignQuestions) {
        self.directory = directory
        self.questions = questions
    }

    var report: @Sendable (InboxEvent) -> Void { questions.report }

    /// Receives from every foreign service until `limit` transfers were taken (nil: until cancelled).
    public func run(limit: Int? = nil) async {
        let tally = InboxTally(limit: limit)
        await withTaskGroup(of: Void.self) { group in
            for service in questions.foreign.services { group.addTask { await receive(from: service, tally) } }
            _ = await group.next()
            group.cancelAll()
        }
    }

    /// One foreign protocol's offers, texts and pairing requests.
    func receive(from service: any ForeignPeerService, _ tally: InboxTally) async {
        for await event in service.events {
            switch event {
            case .offered(let offer):
                Task { await questions.answer(offer, into: directory, via: service) }
            case .pairingRequested(let peer, let key):
                Task { await questions.answerPairing(peer, key: key, accepted: false, via: service) }
            case .progress(let progress):
                report(.foreignProgress(progress))
            case .received(let offerID, _, let url):
                report(.received(ReceivedRecord(id: offerID, path: url.path, protocol: service.protocolName.rawValue)))
                if await tally.add() { return }
            case .textReceived(let text, let peer):
                report(.text(TextRecord(text, from: peer), from: peer))
                await keepOnClipboard(text, from: peer)
                if await tally.add() { return }
            case .failed(let offerID, let reason):
                report(.failed(FailedRecord(id: offerID, error: reason)))
            case .fingerprintChanged(let peer, let pinned):
                report(.fingerprintChanged(peer, pinned: pinned))
            case .paired(let peer):
                report(.paired(peer))
            case .pairingEnded(let peer, let reason):
                report(.pairingEnded(peer, reason: reason))
            case .found, .downloadRequested, .downloaded, .pairingStarted, .pairingConfirmation, .clipboardReceived:
                continue
            }
        }
    }

    func keepOnClipboard(_ text: String, from peer: ForeignPeer) async {
        guard let clipboard else { return }
        do {
            try await clipboard(text)
            report(.onClipboard(from: peer))
        } catch {
            report(.notOnClipboard(error: "\(error)"))
        }
    }
}

/// How many transfers have been taken, across protocols; the inbox stops at its limit.
actor InboxTally {
    let limit: Int?
    var received = 0

    init(limit: Int?) { self.limit = limit }

    /// Counts one; true when the limit is reached.
    func add() -> Bool {
        received += 1
        return limit.map { received >= $0 } ?? false
    }
}
