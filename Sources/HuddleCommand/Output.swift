import Foundation
import Huddle
import HuddleApp

/// Writes lines to standard output at once (no buffering, so a pipe reader sees each line as it happens).
///
/// Everything printed goes through here, and here any character that could drive a terminal is made visible
/// (``DisplayText/escaped(_:)``): names, reasons and types from peers and from mDNS adverts cannot move the
/// cursor, retitle the window, set the clipboard (OSC 52) or reorder text, whichever path prints them.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((self.text(text) + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(("huddle: " + self.text(text) + "\n").utf8))
    }

    /// One JSON object on one line (``JSONLine``).
    static func json(_ record: some Encodable) {
        guard let text = JSONLine.text(record) else { return }
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A JSON line made elsewhere (the daemon's), printed as ``json(_:)`` prints one: no control character in it.
    static func json(text: String) {
        FileHandle.standardOutput.write(Data((JSONLine.escapingControls(text) + "\n").utf8))
    }

    /// A record as the lines of a question (one JSON object; none when it cannot be encoded).
    static func jsonLines(_ record: some Encodable) -> [String] {
        JSONLine.text(record).map { [$0] } ?? []
    }

    /// A line as printed: with terminal controls made visible.
    static func text(_ text: String) -> String {
        DisplayText.escaped(text)
    }
}
