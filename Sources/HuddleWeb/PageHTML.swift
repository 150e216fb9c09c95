import Foundation
import HuddleDaemon

/// The page as the server sends it (docs/web.md, "The page"): complete before any script runs — the devices, the
/// questions with their Accept and Decline buttons, the outbox with its Cancel buttons are plain HTML forms. Every
/// link and form carries the token; every text from a peer is escaped (``HTMLText``).
enum PageHTML {
    static func render(
        _ state: PageState,
        token: String,
        now: Date,
        staged: StagedSends.Staged? = nil,
        stageAsked: Bool = false
    ) -> String {
        let title = "Huddle — " + HTMLText.escaped(state.name)
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(title)</title>
            <link rel="icon" href="data:,">
            <link rel="stylesheet" href="/page.css?token=\(token)">
            <script src="/page.js?token=\(token)" defer></script>
            </head>
            <body>
            <header><div class="top">
            <div class="brand">Huddle</div>
            <div class="me">\(avatar(state.name))<div><strong>\(HTMLText.escaped(state.name))</strong> \
            <span class="id">\(HTMLText.escaped(state.shortID))</span>
            <div class="dir">Receiving into \(HTMLText.escaped(state.directory))</div></div></div>
            </div></header>
            <main>
            \(stageAsked ? stagedSection(staged, devices: state.devices, token: token) : "")\
            <div id="live">
            \(questions(state.questions, token: token))\
            \(devices(state.devices))\
            \(outbox(state.outbox, token: token, now: now))\
            \(received(state.received, now: now))\
            \(clipboard(state.clipboard, now: now))\
            \(pairing(state.pairing, token: token))\
            \(phone(state.phone, token: token))\
            \(chat(state.chat, now: now))\
            </div>
            \(sayForm(token: token))\
            \(sending(state.devices))\
            <p id="live-status" class="detail"></p>
            </main>
            </body>
            </html>

            """
    }

    /// The files `huddle ui FILE…` handed over (a file manager's "Send with Huddle"), with one button per device:
    /// each a form, so picking works without the script; what the sends said below.
    static func stagedSection(_ staged: StagedSends.Staged?, devices: [DaemonDevice], token: String) -> String {
        guard let staged else {
            return """
                <section id="staged"><h2>Send these files</h2><p class="empty">These files are no longer waiting \
                here (the daemon restarted, or many were handed over since): send them again.</p></section>

                """
        }
        let names = staged.paths.map {
            "<li><span class=\"name\">\(HTMLText.escaped(URL(fileURLWithPath: $0).lastPathComponent))</span></li>"
        }
        let buttons = devices.map { device in
            let action = "/send?token=\(token)&amp;stage=\(staged.id)&amp;to=\(HTMLText.queryValue(device.sendName))"
            let label = HTMLText.escaped(device.name) + (device.here ? "" : " (away: queued)")
            return "<form method=\"post\" action=\"\(action)\"><button class=\"accept\">\(label)</button></form>"
        }
        let pick = devices.isEmpty ? "<p class=\"empty\">No device to send to yet.</p>" : buttons.joined()
        let said = staged.said.map { "<p class=\"detail\">\(HTMLText.escaped($0))</p>" }.joined()
        return """
            <section id="staged"><h2>Send these files</h2><ul>\(names.joined())</ul>\
            <div class="card"><div>To:</div><div class="actions">\(pick)</div>\(said)</div></section>

            """
    }

    /// The send panel: a device to send to and files, chosen or dropped; the script shows it (sending needs it).
    static func sending(_ devices: [DaemonDevice]) -> String {
        let options = devices.map { device in
            let value = HTMLText.escaped(device.sendName)
            let label = HTMLText.escaped(device.name + " (" + device.protocol + (device.here ? ")" : ", away)"))
            return "<option value=\"\(value)\">\(label)</option>"
        }
        return """
            <section id="send"><h2>Send files</h2>\
            <form id="send-form" class="card" hidden><label class="to">To <select id="send-to">\
            \(options.joined())</select></label>\
            <label id="drop" class="drop">Drop files here, or choose them: \
            <input type="file" id="send-files" multiple></label>\
            <button class="accept" type="submit">Send</button></form>\
            <noscript><p class="empty">Sending from this page needs JavaScript; in a terminal: \
            huddle send FILE --to NAME.</p></noscript>\
            <ul id="sends" hidden></ul></section>

            """
    }

    static func questions(_ questions: [PageState.Question], token: String) -> String {
        guard !questions.isEmpty else { return "" }
        let items = questions.map { question in
            let words = question.lines.map { "<p>\(HTMLText.escaped($0))</p>" }.joined()
            let action = "/answer?token=\(token)&amp;question=\(question.id)&amp;accept="
            return """
                <li class="question" id="question-\(question.id)">\(words)<div class="actions">\
                <form method="post" action="\(action)yes"><button class="accept">Accept</button></form>\
                <form method="post" action="\(action)no"><button class="decline">Decline</button></form>\
                </div></li>
                """
        }
        return "<section id=\"questions\"><h2>Waiting for you</h2><ul>\(items.joined())</ul></section>\n"
    }

    static func devices(_ devices: [DaemonDevice]) -> String {
        guard !devices.isEmpty else {
            return """
                <section id="devices"><h2>Devices</h2><p class="empty">No device is here yet, and none is paired. \
                Devices running Huddle, LocalSend or KDE Connect on this network appear here.</p></section>

                """
        }
        let items = devices.map { device in
            let state = device.here ? "here" : "away — a send waits for it"
            return """
                <li class="device \(device.here ? "here" : "away")">\(avatar(device.name))<div class="about">\
                <span class="name">\(HTMLText.escaped(device.name))</span> \
                <span class="badge">\(HTMLText.escaped(device.protocol))</span>\
                <div class="detail">\(HTMLText.escaped(device.trust)) · \(state) · \
                <span class="id">\(HTMLText.escaped(device.id))</span></div></div></li>
                """
        }
        return "<section id=\"devices\"><h2>Devices</h2><ul>\(items.joined())</ul></section>\n"
    }

    static func outbox(_ queued: [PageState.QueuedSend], token: String, now: Date) -> String {
        guard !queued.isEmpty else { return "" }
        let items = queued.map { send in
            let failure = send.lastError.map { "<div class=\"detail\">last try: \(HTMLText.escaped($0))</div>" } ?? ""
            return """
                <li class="queued"><div class="about"><span class="name">\(HTMLText.escaped(send.file))</span> \
                for \(HTMLText.escaped(send.recipient))<div class="detail">queued \(age(since: send.queuedAt, now: now)) \
                · <span class="id">\(HTMLText.escaped(send.id))</span></div>\(failure)</div>\
                <form method="post" action="/cancel?token=\(token)&amp;id=\(HTMLText.queryValue(send.id))">\
                <button class="decline">Cancel</button></form></li>
                """
        }
        return "<section id=\"outbox\"><h2>Outbox</h2><ul>\(items.joined())</ul></section>\n"
    }

    /// The files received, newest first, each with where it went.
    static func received(_ entries: [HistoryEntry], now: Date) -> String {
        let files = entries.filter { $0.kind == .file }
        guard !files.isEmpty else { return "" }
        let items = files.map { entry in
            let via = entry.protocol == "huddle" ? "" : " · \(HTMLText.escaped(entry.protocol))"
            let path = entry.path ?? "?"
            let name = URL(fileURLWithPath: path).lastPathComponent
            let count = (entry.files ?? 1) > 1 ? " (\(entry.files ?? 1) files)" : ""
            let folder = HTMLText.escaped(URL(fileURLWithPath: path).deletingLastPathComponent().path)
            return """
                <li class="file"><div class="about"><span class="name">\(HTMLText.escaped(name))</span>\(count)\
                <div class="detail">in \(folder) · \(age(since: entry.at, now: now))\(via)</div></div></li>
                """
        }
        return "<section id=\"received\"><h2>Received</h2><ul>\(items.joined())</ul></section>\n"
    }

    /// The conversation ("Typing Together"), oldest first: who said what — a device, or you to whom — and when.
    static func chat(_ entries: [HistoryEntry], now: Date) -> String {
        guard !entries.isEmpty else { return "" }
        let items = entries.map { entry in
            let via = entry.protocol == "huddle" ? "" : " · \(HTMLText.escaped(entry.protocol))"
            let mine = entry.to != nil
            let who = mine ? "You to " + HTMLText.escaped(entry.to ?? "") : HTMLText.escaped(entry.from ?? "?")
            return """
                <li class="text\(mine ? " mine" : "")"><div class="about"><span class="name">\(who)</span>\
                <p class="said">\(HTMLText.escaped(entry.text ?? ""))</p><div class="detail">\(age(since: entry.at, now: now))\(via)</div></div></li>
                """
        }
        return "<section id=\"chat\"><h2>Chat</h2><ul>\(items.joined())</ul></section>\n"
    }

    /// A line to say to every connected Huddle peer: a plain form, outside the live part so that typing survives
    /// an update.
    static func sayForm(token: String) -> String {
        """
        <form id="say" class="say" method="post" action="/say?token=\(token)">\
        <input name="text" maxlength="4096" placeholder="Say something to everyone connected" aria-label="Say" required>\
        <button type="submit">Say</button></form>

        """
    }

    /// A round mark with the name's first letter, its colour one of twelve chosen by the name (the same name, the same
    /// colour; a class, since the page's Content-Security-Policy allows no inline style).
    static func avatar(_ name: String) -> String {
        let letter = name.first.map { HTMLText.escaped(String($0).uppercased()) } ?? "?"
        let hue = name.unicodeScalars.reduce(UInt32(7)) { ($0 &* 31 &+ $1.value) % 12 }
        return "<span class=\"avatar hue-\(hue)\" aria-hidden=\"true\">\(letter)</span>"
    }

    /// How long ago, in the largest whole unit: "just now", "5 min ago", "3 h ago", "2 days ago".
    static func age(since then: Date, now: Date) -> String {
        let seconds = Int(now.timeIntervalSince(then))
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return "\(seconds / 60) min ago"
        case ..<86400: return "\(seconds / 3600) h ago"
        default: return seconds / 86400 == 1 ? "1 day ago" : "\(seconds / 86400) days ago"
        }
    }
}
