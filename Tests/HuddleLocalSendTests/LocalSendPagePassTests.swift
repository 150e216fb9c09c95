import Foundation
import HuddleForeign
import HuddleLocalSendWire
import HuddleTestSupport
import Testing

@testable import HuddleLocalSend

/// The share page as the daemon's page for a phone (docs/daemon.md, "A phone's page"): with a pass configured,
/// every request on its server needs the pass in force — not even the script is served without it — and the page
/// asks for its script with the pass; nothing is offered to apps.
@Suite struct LocalSendPagePassTests {
    @Test func withoutThePassInForceNothingIsServedAndWithItThePageAndScriptAre() async throws {
        let memory = MemoryStreams()
        let passes = BrowserPasses()
        var configuration = LocalSendTestDevice.configuration("Phone page", memory: memory)
        var share = LocalSendShareConfiguration.phonePage(passes)
        share.httpPort = 0
        configuration.share = share
        let device = try await LocalSendTestDevice.start(configuration)
        do {
            let port = try #require(device.service.sharePort)
            func get(_ path: String) async throws -> String {
                try await LocalSendShareHostTests.get(path, host: "127.0.0.1:\(port)", port: port, through: memory)
            }
            let pass = String(repeating: "5e", count: 16)
            // None issued yet: refused, pass or not.
            for path in ["/", "/?pass=\(pass)", "/share.js", "/api/localsend/v2/info"] {
                let answer = try await get(path)
                #expect(answer.hasPrefix("HTTP/1.1 403 "), "\(path): \(answer)")
                #expect(!answer.contains("<form"))
            }
            passes.issue(pass)
            let refused = try await get("/share.js")
            #expect(refused.hasPrefix("HTTP/1.1 403 "))
            #expect(refused.hasSuffix(BrowserPass.Refusal.noPass.rawValue + "\n"))
            let wrong = try await get("/?pass=" + String(repeating: "00", count: 16))
            #expect(wrong.hasSuffix(BrowserPass.Refusal.wrongPass.rawValue + "\n"))
            let page = try await get("/?pass=\(pass)")
            #expect(page.hasPrefix("HTTP/1.1 200 "))
            #expect(page.contains("<script src=\"/share.js?pass=\(pass)\" defer></script>"))
            #expect(page.contains("<form id=\"upload-form\">"))
            #expect(!page.contains("<ul id=\"files\">"))
            let script = try await get("/share.js?pass=\(pass)")
            #expect(script.hasSuffix(LocalSendSharePage.script))
            #expect(passes.pass?.holder == "127.0.0.1")
            // Apps are not told there is anything to download.
            #expect(device.service.ownInfo(announce: nil).download == false)
        } catch {
            await device.stop()
            throw error
        }
        await device.stop()
    }

    @Test func thePageWithoutAPassAsksForItsScriptPlainly() {
        #expect(LocalSendSharePage.html(shares: true, receives: false).contains("<script src=\"/share.js\" defer>"))
        let page = LocalSendSharePage.html(shares: false, receives: true, pass: "ab\"><x")
        #expect(page.contains("<script src=\"/share.js?pass=ab\" defer>"))  // only hex digits go through
    }
}
