import Foundation
import HuddleQR

extension PageHTML {
    /// The page for a phone (docs/daemon.md, "A phone's page"): a button that shows a new code; while the code
    /// waits for its phone, its QR code (a PNG as a `data:` URL, which the page's Content-Security-Policy allows)
    /// and its address; once a phone holds it, which one. Nothing when the page for a phone is off. With the script,
    /// files chosen here are offered with a new code (``PhoneFiles``).
    static func phone(_ phone: PageState.Phone?, token: String) -> String {
        guard let phone else { return "" }
        var shown = ""
        if let link = phone.links.first {
            let image = (try? QRCode(encoding: link)).map {
                let png = Data($0.png(scale: 6)).base64EncodedString()
                return "<img class=\"qr\" alt=\"The QR code of the phone's page\" src=\"data:image/png;base64,\(png)\">"
            }
            shown = """
                \(image ?? "")<p>Scan it with the phone's camera, or open \
                <span class="id">\(HTMLText.escaped(link))</span> there. It opens the page for one phone, once, \
                within 10 minutes.</p>
                """
        } else if let holder = phone.holder {
            shown = "<p>The phone at <span class=\"id\">\(HTMLText.escaped(holder))</span> has the page.</p>"
        }
        let button = phone.links.isEmpty ? "Show a code for a phone" : "Show a new code"
        return """
            <section id="phone"><h2>A phone</h2><div class="card">\(shown)<p class="detail">A phone without an \
            app sends files here from its browser, each asked about first.</p>\
            <form method="post" action="/phone?token=\(token)"><button>\(button)</button></form>\
            <form id="phone-files" hidden><label>Files the phone may download: \
            <input type="file" id="phone-pick" multiple required></label> \
            <button type="submit">Show a code with these files</button><p class="detail"></p></form></div></section>

            """
    }
}
