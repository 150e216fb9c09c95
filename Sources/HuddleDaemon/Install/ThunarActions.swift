import Foundation

/// Thunar's custom actions (`~/.config/Thunar/uca.xml`) with "Send with Huddle" among them: the user's own actions
/// kept, ours added once (by its `unique-id`) or replaced when written again.
enum ThunarActions {
    static let id = "huddle-send"

    static func action(executable: String) -> String {
        let command = XMLText.escaped(ShellText.quoted(executable) + " ui -- %F")
        return """
            <action>
            \t<icon>document-send</icon>
            \t<name>Send with Huddle</name>
            \t<unique-id>\(id)</unique-id>
            \t<command>\(command)</command>
            \t<description>Send to a device nearby, picked on Huddle's page</description>
            \t<patterns>*</patterns>
            \t<directories/>
            \t<audio-files/>
            \t<image-files/>
            \t<other-files/>
            \t<text-files/>
            \t<video-files/>
            </action>
            """
    }

    /// `existing` (nil: no file yet) with our action in it, before `</actions>`.
    static func merged(_ existing: String?, executable: String) -> String {
        var text = existing ?? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<actions>\n</actions>\n"
        // Ours from an earlier install goes first: the action is written once, as it is now.
        if let mark = text.range(of: "<unique-id>\(id)</unique-id>"),
            let start = text[..<mark.lowerBound].range(of: "<action>", options: .backwards),
            let end = text[mark.upperBound...].range(of: "</action>")
        {
            var through = end.upperBound
            if through < text.endIndex, text[through] == "\n" { through = text.index(after: through) }
            text.removeSubrange(start.lowerBound..<through)
        }
        guard let close = text.range(of: "</actions>", options: .backwards) else {
            return text + "\n" + action(executable: executable) + "\n"
        }
        text.insert(contentsOf: action(executable: executable) + "\n", at: close.lowerBound)
        return text
    }
}

/// Text made safe in XML character data (XML 1.0 §2.4): `&`, `<` and `>` as references.
enum XMLText {
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
