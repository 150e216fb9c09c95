public import Huddle
import HuddleTransport
import HuddleWire

extension PeerConnectionRequest {
    /// A line to show before the question when the peer's name looks like a paired device's (a borrowed name,
    /// `docs/security.md` §5 J3), else nil.
    public var namesakeWarning: String? {
        guard !namesakes.isEmpty else { return nil }
        let known = namesakes.map(\.shortID).joined(separator: ", ")
        return "! \(displayName) (\(deviceID.shortID)) is a new device with the name of a paired one (\(known)): "
            + "it is not that device. Answer y only if you expect a second device of that name."
    }

    /// Whether `--yes` may answer for the user: never for a borrowed-looking name.
    public func mayBeAutoAccepted(_ autoAccept: Bool) -> Bool { autoAccept && namesakes.isEmpty }

    /// The one wording of a connection request, in every command: the namesake warning, what the peer says, and
    /// the question, with the code to compare at first contact.
    public var question: [String] {
        let who = "\(displayName) (\(deviceID.shortID))"
        var lines = namesakeWarning.map { [$0] } ?? []
        if !contextText.isEmpty { lines.append("  they say: \(contextText)") }
        if let code {
            lines.append("? pair with \(who)? Code: \(code) — check that \(displayName) shows the same. [y/n]")
        } else {
            lines.append("? connect to \(who) (\(trust?.rawValue ?? "known") device)? [y/n]")
        }
        return lines
    }

    /// Asks ``question`` (or `lines`) in turn with the process's other questions; with `--yes`, when it may answer,
    /// shows them and says yes. No when no one answers.
    public func answer(_ lines: [String]? = nil, autoAccept: Bool, prompter: Prompter) async -> Bool {
        await decide(lines, autoAccept: autoAccept, prompter: prompter) ?? false
    }

    /// As ``answer(_:autoAccept:prompter:)``, but nil when the request ended before anyone answered.
    public func decide(
        _ lines: [String]? = nil,
        autoAccept: Bool,
        prompter: Prompter,
        numbered: Bool = true
    ) async -> Bool? {
        let lines = lines ?? question
        if mayBeAutoAccepted(autoAccept) {
            await prompter.say(lines)
            return true
        }
        // One question per device; a device met for the first time waits behind paired ones.
        return await prompter.decide(
            lines,
            key: "\(id)",
            numbered: numbered,
            asker: .init(source: "\(deviceID)", isKnown: trust != nil)
        )
    }
}

extension PeerConnectionRequest {
    /// What the issuer of a pairing link is asked when the device that used it calls itself like a paired device
    /// (otherwise a link pairs without a question).
    public var linkQuestion: [String] {
        (namesakeWarning.map { [$0] } ?? [])
            + ["? \(displayName) (\(deviceID.shortID)) used this device's pairing link. Pair with it? [y/n]"]
    }
}
