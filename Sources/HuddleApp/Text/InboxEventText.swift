import Huddle
import HuddleForeign

/// An inbox's event in words (``InboxEvent``): what `huddle receive` prints, and what the daemon logs. Progress is
/// not said here: it is drawn, or printed as JSON, by the caller.
public struct InboxEventText: Sendable {
    /// How one event is said: a result (its record with --json, else its line), a line for standard error (and
    /// a record beside it with --json), or a plain line.
    public enum Said: Sendable {
        case result(any Encodable & Sendable, line: String)
        case error(String, record: FailedRecord? = nil)
        case line(String)
        case lines([String])
    }

    /// The words of the questions, for a question settled without asking.
    public let questions: InboxQuestionText
    /// Under --yes a question settled without asking is still said, for the log and for scripts.
    public let assumeYes: Bool

    public init(questions: InboxQuestionText, assumeYes: Bool) {
        self.questions = questions
        self.assumeYes = assumeYes
    }

    /// What to say of `event`; nil for progress and for what is not said.
    public func said(_ event: InboxEvent) -> Said? {
        switch event {
        case .settled(let question, .takenWithoutAsking):
            assumeYes ? .lines(questions.lines(question)) : nil
        case .settled(.transfer(let transfer, let from), .refused):
            .error(
                "declined directory \(transfer.name)/ from \(from): its name is hidden (give --allow-hidden to take it)"
            )
        case .settled(let question, .refused(let refusal)):
            .error("\(InboxQuestionText.asker(of: question)): refused without asking: \(refusal)")
        case .progress, .foreignProgress:
            nil
        case .received(let record):
            .result(
                record,
                line: record.directory
                    ? "received \(record.path)/ (\(record.files) files, all verified)" : "received \(record.path)"
            )
        case .text(let record, let peer):
            .result(
                record,
                line: "text from \(peer.name) (\(peer.identityText), not verified):\n"
                    + InboxQuestionText.shown(record.text)
            )
        case .onClipboard(let peer):
            .result(DeviceRecord.textOnClipboard(from: peer), line: "(on the clipboard)")
        case .notOnClipboard(let error):
            .error("the text could not be put on the clipboard: \(error)")
        case .failed(let record):
            .error(record.error, record: record)
        case .notTaken(let error), .pinsUnreadable(let error):
            .error(error)
        case .fingerprintChanged(let peer, let pinned):
            .error(ForeignTrustText.changed(peer, pinned: pinned))
        case .pinned(let peer):
            .line(ForeignTrustText.pinned(peer))
        case .notPinned(let peer, let error):
            .error("could not pin \(peer.name): \(error)")
        case .paired(let peer):
            .result(DeviceRecord.paired(peer), line: "* paired with \(peer.protocol.rawValue) device \(peer.name)")
        case .pairingEnded(let peer, let reason):
            .result(DeviceRecord.pairingEnded(peer, reason: reason), line: "* \(peer.name): \(reason)")
        case .pairingPaused(let pause):
            .error("\(pause)")
        }
    }
}
