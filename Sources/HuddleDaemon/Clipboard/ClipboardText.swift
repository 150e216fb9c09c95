import Foundation
import HuddleBase
import HuddlePasteboard

/// What a kept clipboard item says in a terminal (`huddle clip sync` through the daemon).
public enum ClipboardText {
    /// Hours and minutes, in this machine's time zone.
    static let timeFormat = {
        let format = DateFormatter()
        format.dateFormat = "HH:mm"
        return format
    }()

    /// `07:12 ← from DaBob: text/plain;charset=utf-8 (5 B) "hello"`; a peer's text made safe to print.
    public static func line(_ entry: ClipboardEntry) -> String {
        let time = timeFormat.string(from: entry.at)
        let who = entry.peers.map { DisplayText.sanitized($0, limit: 40) }.joined(separator: ", ")
        let arrow = entry.direction == .taken ? "← from \(who)" : "→ to \(who)"
        let text = entry.text.map { " \"\(DisplayText.sanitized($0, limit: 60))\"" } ?? ""
        return "\(time) \(arrow): \(entry.summary)\(text)"
    }

    /// An item for a question: its types and sizes, and the start of its text made safe to print.
    static func described(_ item: PasteboardItem, summary: String) -> String {
        guard let text = item.string else { return summary }
        return "\(summary) \"\(DisplayText.sanitized(text, limit: 60))\""
    }
}
