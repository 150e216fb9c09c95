import Foundation
import Huddle
public import HuddleForeign

/// The words of a question the inbox puts to a person (``InboxQuestion``), one wording for the command line's prompt
/// and the daemon's `huddle answer`: lines, or one JSON object with `json`.
public struct InboxQuestionText: Sendable {
    public let json: Bool
    /// Whether a text also goes to the clipboard (said in its question).
    public let toClipboard: Bool

    public init(json: Bool = false, toClipboard: Bool = false) {
        self.json = json
        self.toClipboard = toClipboard
    }

    /// The question: one JSON object, or its words (after the warning, when a device's certificate changed).
    public func lines(_ question: InboxQuestion) -> [String] {
        switch question {
        case .connection(let request):
            return request.question
        case .transfer(let transfer, let from):
            if json { return JSONLine.lines(OfferRecord(transfer, from: from)) }
            let what =
                transfer.isDirectory
                ? "directory \(transfer.name)/ (\(transfer.fileCount) files, \(transfer.size) bytes)"
                : "\(transfer.name) (\(transfer.size) bytes)"
            return ["? \(what) from \(from). Accept? [y/n]"]
        case .offer(let offer, let trust):
            var lines = json ? JSONLine.lines(OfferRecord(offer, clipboard: toClipboard)) : words(offer, trust)
            if case .changed(let pinned)? = trust {
                lines.insert(ForeignTrustText.changed(offer.from, pinned: pinned.fingerprint), at: 0)
            }
            return lines
        case .pairing(let peer, let key, let trust, let accepted):
            if json {
                return JSONLine.lines(PairingQuestionRecord(accepted ? "pairConfirm" : "pairRequest", peer, key: key))
            }
            let device = "\(peer.protocol.rawValue) device \"\(peer.name)\""
            let text =
                accepted
                ? "? \(device) accepted. Does it show verification key \(key)? [y/n]"
                : "? \(device) asks to pair. Verification key: \(key) — check the other screen shows the same. [y/n]"
            guard case .changed(let pinned)? = trust else { return [text] }
            return [ForeignTrustText.changed(peer, pinned: pinned.fingerprint), text]
        }
    }

    /// A device's offer in words: every file listed, or the start of its text.
    public func words(_ offer: ForeignOffer, _ trust: ForeignTrust?) -> [String] {
        let from = offer.from
        let who = "\(from.name) (\(from.identityText), \((trust ?? .unpinned).phrase))"
        if let text = offer.text {
            let target = toClipboard ? " for the clipboard" : ""
            let start = DisplayText.sanitized(text, limit: 48)
            return ["? a text\(target) (\(text.utf8.count) bytes: \"\(start)\") from \(who). Take it? [y/n]"]
        }
        let what =
            offer.files.count == 1
            ? "\(offer.files[0].name) (\(offer.files[0].size) bytes)"
            : "\(offer.files.count) files (\(offer.totalSize) bytes)"
        return offer.fileLines + ["? \(what) from \(who). Accept? [y/n]"]
    }

    /// Who asks, for the prompt queue (``PromptQueueRule``): a device by its address (however many devices it says
    /// it is), known when its certificate is pinned; a Huddle offer is the user's own queue's.
    public func asker(_ question: InboxQuestion) -> PromptQueueRule.Asker {
        let (peer, trust): (ForeignPeer, ForeignTrust?)
        switch question {
        case .offer(let offer, let offerTrust): (peer, trust) = (offer.from, offerTrust)
        case .pairing(let device, _, let deviceTrust, _): (peer, trust) = (device, deviceTrust)
        case .connection, .transfer: return .user
        }
        let host = peer.address.lastIndex(of: ":").map { String(peer.address[..<$0]) } ?? peer.address
        return PromptQueueRule.Asker(source: host, isKnown: trust?.isPinned == true)
    }

    /// The name of who put a question.
    public static func asker(of question: InboxQuestion) -> String {
        switch question {
        case .connection(let request): request.displayName
        case .transfer(_, let from): from
        case .offer(let offer, _): offer.from.name
        case .pairing(let peer, _, _, _): peer.name
        }
    }

    /// A text as printed in full: lines and tabs kept, other control characters shown as �.
    public static func shown(_ text: String) -> String {
        text.unicodeScalars.map { scalar in
            scalar == "\n" || scalar == "\t" || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
                ? String(scalar) : "\u{FFFD}"
        }.joined()
    }
}
