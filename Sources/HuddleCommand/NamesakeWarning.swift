import Huddle
import HuddleApp
import HuddleWire

extension PeerConnectionRequest {
    /// A line to show before the question when the peer's name looks like a paired device's (a borrowed name,
    /// `docs/security.md` §5 J3), else nil.
    var namesakeWarning: String? {
        guard !namesakes.isEmpty else { return nil }
        let known = namesakes.map(\.shortID).joined(separator: ", ")
        return "! \(displayName) (\(deviceID.shortID)) is a new device with the name of a paired one (\(known)): "
            + "it is not that device. Answer y only if you expect a second device of that name."
    }

    /// Whether `--yes` may answer for the user: never for a borrowed-looking name.
    func mayBeAutoAccepted(_ autoAccept: Bool) -> Bool { autoAccept && namesakes.isEmpty }

    /// Asks `lines` (the last is the question) in turn with the process's other questions; with `--yes`, when it
    /// may answer, shows them and says yes.
    func answer(_ lines: [String], autoAccept: Bool, prompter: Prompter) async -> Bool {
        if mayBeAutoAccepted(autoAccept) {
            for line in lines { Output.line(line) }
            return true
        }
        // One question per device; a device met for the first time waits behind paired ones.
        return await prompter.confirm(lines, key: "\(id)", asker: .init(source: "\(deviceID)", isKnown: trust != nil))
    }
}

extension PeerConnectionRequest {
    /// What the issuer of a pairing link is asked when the device that used it calls itself like a paired device
    /// (otherwise a link pairs without a question).
    var linkQuestion: [String] {
        (namesakeWarning.map { [$0] } ?? [])
            + ["? \(displayName) (\(deviceID.shortID)) used this device's pairing link. Pair with it? [y/n]"]
    }
}
