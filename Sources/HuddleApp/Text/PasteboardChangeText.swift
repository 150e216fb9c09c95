import Foundation
public import HuddlePasteboard

/// What `huddle pasteboard watch` says of each change: its number, a text's start (at most 60 characters, line
/// breaks shown as ⏎), or its size, and its types; a secret item is not shown.
public enum PasteboardChangeText {
    public static func line(_ change: PasteboardChange) -> String {
        let number = "#\(change.sequence)"
        if change.isEmpty { return "\(number) (empty: the owner went away)" }
        let types = change.types.map(\.rawValue).joined(separator: ", ")
        if change.isSecret { return "\(number) secret item (not shown) [\(types)]" }
        if let text = change.item.string {
            let flat = text.replacingOccurrences(of: "\n", with: "⏎")
            let preview = flat.count > 60 ? String(flat.prefix(59)) + "…" : flat
            return "\(number) \"\(preview)\" [\(types)]"
        }
        return "\(number) \(change.item.byteCount) bytes [\(types)]"
    }
}
