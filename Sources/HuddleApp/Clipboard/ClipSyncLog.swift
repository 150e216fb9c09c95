public import HuddleClipboard

/// One line per event: plain text for people and the journal, or JSON.
public struct ClipSyncLog: Sendable {
    public let quiet: Bool
    public let json: Bool
    /// Prints a line (a JSON object's too).
    let print: @Sendable (String) -> Void

    public init(quiet: Bool, json: Bool, print: @escaping @Sendable (String) -> Void) {
        (self.quiet, self.json, self.print) = (quiet, json, print)
    }

    public func started(_ text: String) {
        if json {
            record(ClipSyncRecord.status(text))
        } else if !quiet {
            print(text)
        }
    }

    public func show(_ event: ClipboardSyncEvent) {
        if case .progress(let progress, let peer) = event {
            // Large items only; one line each in JSON, nothing in the plain log (the result line follows).
            if json { record(ProgressRecord(clipItem: progress, peer: peer)) }
            return
        }
        let (line, isRefusal) = event.text
        if json {
            record(ClipSyncRecord(event))
        } else if !quiet || isRefusal {
            print(line)
        }
    }

    /// One line about a foreign device: plain text, or JSON with its name and protocol.
    public func show(_ note: ForeignClipboardLinks.Note) {
        if json {
            record(note.record)
        } else if !quiet || note.isRefusal {
            print(note.line)
        }
    }

    func record(_ value: some Encodable) {
        if let line = JSONLine.text(value) { print(line) }
    }
}
