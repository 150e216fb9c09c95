import Foundation
import Huddle

/// One JSON object on one line, as the commands print it with `--json` (and as a control socket will carry it):
/// keys sorted, slashes as they are, and every character ``DisplayText/escaped(_:)`` would show written as a `\u`
/// escape — the same JSON value, with no control character in the output (docs/design.md, "JSON output").
public enum JSONLine {
    /// The line, without its newline; nil only when `value` cannot be encoded (a non-finite number).
    public static func text(_ value: some Encodable) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return nil }
        return escapingControls(String(decoding: data, as: UTF8.self))
    }

    /// A record as the lines of a question: one JSON object, none when it cannot be encoded.
    public static func lines(_ value: some Encodable) -> [String] { text(value).map { [$0] } ?? [] }

    /// `text` with every scalar that ``DisplayText/isEscaped(_:)`` names written as a `\u` escape of four hex
    /// digits (inside JSON strings that is the same character; JSON's own syntax never contains one).
    public static func escapingControls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: DisplayText.isEscaped) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if DisplayText.isEscaped(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: false)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
