import Foundation
import HuddleDaemon

extension PageHTML {
    /// The clipboard's recent items (docs/web.md, "The clipboard"), newest first: what came from whom and what went
    /// to whom, with the start of its text; a line saying how to turn sync on when it is off.
    static func clipboard(_ entries: [ClipboardEntry]?, now: Date) -> String {
        guard let entries else {
            return """
                <section id="clipboard"><h2>Clipboard</h2><p class="empty">Clipboard sync is off: \
                <span class="id">clip-sync = true</span> in config.toml keeps this clipboard in step with your \
                paired machines.</p></section>

                """
        }
        guard !entries.isEmpty else {
            return """
                <section id="clipboard"><h2>Clipboard</h2><p class="empty">Nothing copied here or on a paired \
                machine since the daemon started.</p></section>

                """
        }
        let items = entries.reversed().map { entry in
            let who = entry.peers.map(HTMLText.escaped).joined(separator: ", ")
            let title = entry.direction == .taken ? "From \(who)" : "To \(who)"
            let text = entry.text.map { "<p class=\"said\">\(HTMLText.escaped($0))</p>" } ?? ""
            return """
                <li class="clip"><div class="about"><span class="name">\(title)</span>\(text)\
                <div class="detail">\(HTMLText.escaped(entry.summary)) · \(age(since: entry.at, now: now))</div></div></li>
                """
        }
        return "<section id=\"clipboard\"><h2>Clipboard</h2><ul>\(items.joined())</ul></section>\n"
    }
}
