import Foundation
import HuddleDaemon
import HuddleQR

extension PageHTML {
    /// Pairing another Huddle device (docs/web.md, "The page"): a button that issues a pairing link; while it waits,
    /// its QR code and the link to give `huddle pair` on the other device; then who paired, or that it expired.
    static func pairing(_ pairing: PagePairing.Shown?, token: String) -> String {
        var shown = ""
        if let link = pairing?.link {
            let image = (try? QRCode(encoding: link)).map {
                let png = Data($0.png(scale: 4)).base64EncodedString()
                return "<img class=\"qr\" alt=\"The pairing link as a QR code\" src=\"data:image/png;base64,\(png)\">"
            }
            shown = """
                \(image ?? "")<p>On the other device run <code>huddle pair -</code> and paste this link; it pairs \
                one device, within 10 minutes:</p><p class="link id">\(HTMLText.escaped(link))</p>
                """
        } else if let said = pairing?.said {
            shown = "<p>\(HTMLText.escaped(said))</p>"
        }
        let button = pairing?.link == nil ? "Show a pairing link" : "Show a new link"
        return """
            <section id="pairing"><h2>Pair a device</h2><div class="card">\(shown)<p class="detail">A paired \
            Huddle device sends here without a question, and gets what is sent to it when it is back.</p>\
            <form method="post" action="/pair?token=\(token)"><button>\(button)</button></form></div></section>

            """
    }
}
