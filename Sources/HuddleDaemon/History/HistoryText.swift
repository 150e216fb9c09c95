public import Foundation
import HuddleApp
import HuddleBase

/// `huddle history` in words: one line per entry, oldest first, its time in the machine's zone.
public enum HistoryText {
    /// `huddle history`'s output for the history at `file` (read, never changed): its lines, or with `json` one
    /// JSON object per entry (times in ISO 8601); and a warning when the file cannot be read.
    public static func output(file: URL, from name: String?, json: Bool) -> (lines: [String], warning: String?) {
        guard let all = HistoryStore.read(file) else {
            return ([], "the history \(file.path) cannot be read (the daemon moves it aside when it starts)")
        }
        let chosen = entries(all, from: name)
        guard json else { return (lines(chosen), nil) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let records = chosen.compactMap { entry in
            (try? encoder.encode(entry)).map { JSONLine.escapingControls(String(decoding: $0, as: UTF8.self)) }
        }
        return (records, nil)
    }

    /// The conversation with the device called `name` (compared without case): what came from it and what was
    /// said to it; all when nil.
    public static func entries(_ entries: [HistoryEntry], from name: String?) -> [HistoryEntry] {
        guard let name else { return entries }
        func named(_ text: String) -> Bool { text.caseInsensitiveCompare(name) == .orderedSame }
        return entries.filter { entry in
            entry.from.map(named) == true
                || entry.to?.split(separator: ",").contains { named($0.trimmingCharacters(in: .whitespaces)) } == true
        }
    }

    public static func lines(_ entries: [HistoryEntry], timeZone: TimeZone = .current) -> [String] {
        guard !entries.isEmpty else { return ["Nothing received yet."] }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return entries.map { entry in
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: entry.at)
            let when = String(
                format: "%04d-%02d-%02d %02d:%02d",
                parts.year ?? 0,
                parts.month ?? 0,
                parts.day ?? 0,
                parts.hour ?? 0,
                parts.minute ?? 0
            )
            let via = entry.protocol == "huddle" ? "" : " (\(entry.protocol))"
            switch entry.kind {
            case .text where entry.to != nil:
                let text = DisplayText.escaped(entry.text ?? "")
                return "\(when)  you to \(DisplayText.escaped(entry.to ?? "?"))\(via): \"\(text)\""
            case .text:
                let text = DisplayText.escaped(entry.text ?? "")
                return "\(when)  \(DisplayText.escaped(entry.from ?? "?"))\(via): \"\(text)\""
            case .file:
                let path = DisplayText.escaped(entry.path ?? "?")
                let count = (entry.files ?? 1) > 1 ? " (\(entry.files ?? 1) files)" : ""
                return "\(when)  received \(path)\(count)\(via)"
            }
        }
    }
}
