import Foundation
import HuddleForeign

/// How many transfers `huddle receive` has taken, across protocols; it stops at `--count`.
actor ReceiveTally {
    let limit: Int?
    var received = 0

    init(limit: Int?) { self.limit = limit }

    /// Counts one; true when the limit is reached.
    func add() -> Bool {
        received += 1
        return limit.map { received >= $0 } ?? false
    }
}

/// `huddle receive` for one foreign protocol: its offers asked like Huddle's (or taken with --yes), its files
/// and texts reported.
struct ForeignReceiving {
    let service: any ForeignPeerService
    let directory: URL
    let reporter: ProgressReporter
    let json: Bool
    let autoAccept: Bool

    func run(tally: ReceiveTally) async {
        for await event in service.events {
            switch event {
            case .offered(let offer):
                Task { await ask(offer) }
            case .progress(let progress):
                reporter.show(progress)
            case .received(let offerID, _, let url):
                reporter.result(
                    "received",
                    [
                        "path": url.path, "files": 1, "directory": false, "id": offerID,
                        "protocol": service.protocolName.rawValue,
                    ],
                    text: "received \(url.path)"
                )
                if await tally.add() { return }
            case .textReceived(let text, let peer):
                let shown = text.unicodeScalars.map { scalar in
                    scalar == "\n" || scalar == "\t" || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
                        ? String(scalar) : "\u{FFFD}"
                }.joined()
                reporter.result(
                    "text",
                    ["text": text, "from": peer.name, "protocol": peer.protocol.rawValue],
                    text: "text from \(peer.name) (\(peer.identityText), not verified):\n\(shown)"
                )
                if await tally.add() { return }
            case .failed(let offerID, let reason):
                if json { reporter.result("failed", ["id": offerID, "error": reason], text: "") }
                Output.error(reason)
            case .fingerprintChanged(let peer, let pinned):
                Output.error(ForeignTrustText.changed(peer, pinned: pinned))
            case .found:
                continue
            }
        }
    }

    func ask(_ offer: ForeignOffer) async {
        let from = offer.from
        let what =
            offer.files.count == 1
            ? "\(offer.files[0].name) (\(offer.files[0].size) bytes)"
            : "\(offer.files.count) files (\(offer.totalSize) bytes)"
        let fields: [String: Any] = [
            "event": "offer", "name": offer.files.first?.name ?? "", "size": offer.totalSize, "from": from.name,
            "files": offer.files.count, "directory": false, "id": offer.id, "protocol": from.protocol.rawValue,
            "fingerprint": from.fingerprint ?? "",
        ]
        let question =
            json
            ? Output.jsonText(fields).map { [$0] } ?? []
            : ["? \(what) from \(from.name) (\(from.identityText), not verified). Accept? [y/n]"]
        let yes: Bool
        if autoAccept {
            for line in question { Output.line(line) }
            yes = true
        } else {
            yes = await Prompter.standard.confirm(question, numbered: !json)
        }
        await service.answer(offer, with: yes ? .accept(into: directory) : .decline)
    }
}

/// What the user is told about a foreign peer's identity.
enum ForeignTrustText {
    static func changed(_ peer: ForeignPeer, pinned: String) -> String {
        "WARNING: the \(peer.protocol.rawValue) device \(peer.name) now shows fingerprint "
            + "\(peer.fingerprint?.prefix(16) ?? "none")…, not the \(pinned.prefix(16))… pinned for it: it may be "
            + "another device posing as it. Nothing is sent to or taken from it without asking."
    }
}
