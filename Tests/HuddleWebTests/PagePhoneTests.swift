import Foundation
import HTTPTypes
import HuddleDaemon
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

@testable import HuddleWeb

/// The page's "A phone" section and `POST /phone` (docs/daemon.md, "A phone's page"): a code that waits for its
/// phone is shown as a QR image and its address; a held one says which phone holds it; the form shows a new code.
@Suite struct PagePhoneTests {
    static let token = String(repeating: "5a", count: 32)
    static let link = "http://10.0.0.2:53318/?pass=" + String(repeating: "c3", count: 16)

    /// How many times the form asked for a new code, and the files of the last.
    final class Asked: Sendable {
        let count = Mutex(0)
        let files = Mutex<[URL]>([])
    }

    func application(
        phone: PageState.Phone?,
        shows: Bool,
        asked: Asked,
        uploads: URL = FileManager.default.temporaryDirectory.appendingPathComponent("uploads-\(UUID().uuidString)")
    ) -> some ApplicationProtocol {
        let gate = PageGate()
        gate.open(PageAccess(token: Self.token, port: 80))
        var state = PageState(name: "DaAda", shortID: "ABCDEFG", directory: "/in")
        state.phone = phone
        let shown = state
        var backend = PageBackend(
            state: { shown },
            answer: { _, _ in false },
            cancel: { _ in false },
            send: { _, _, _ in PageSendResult(status: 1, lines: [], queued: false) },
            uploads: uploads
        )
        backend.showPhoneCode = { files in
            asked.count.withLock { $0 += 1 }
            asked.files.withLock { $0 = files }
            return shows ? nil : "the page for a phone is not running (phone-page = false)"
        }
        return Application(router: PageRoutes(backend: backend, gate: gate).router())
    }

    func page(_ phone: PageState.Phone?) async throws -> String {
        let text = Mutex("")
        try await application(phone: phone, shows: true, asked: Asked()).test(.router) { client in
            let response = try await client.execute(uri: "/?token=\(Self.token)", method: .get)
            #expect(response.status == .ok)
            text.withLock { $0 = String(buffer: response.body) }
        }
        return text.withLock { $0 }
    }

    @Test func aWaitingCodeIsShownAsAQRImageOfItsAddress() async throws {
        let page = try await page(PageState.Phone(links: [Self.link], holder: nil))
        #expect(page.contains("<section id=\"phone\"><h2>A phone</h2>"))
        #expect(page.contains("<span class=\"id\">\(Self.link)</span>"))
        #expect(page.contains("<button>Show a new code</button>"))
        let start = try #require(page.range(of: "src=\"data:image/png;base64,"))
        let base64 = page[start.upperBound...].prefix { $0 != "\"" }
        let png = try #require(Data(base64Encoded: String(base64)))
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    @Test func aHeldCodeNamesItsPhoneAndOffPageShowsNothing() async throws {
        let held = try await page(PageState.Phone(links: [], holder: "10.0.0.7"))
        #expect(held.contains("The phone at <span class=\"id\">10.0.0.7</span> has the page."))
        #expect(held.contains("<button>Show a code for a phone</button>"))
        #expect(!held.contains("data:image/png"))
        let off = try await page(nil)
        #expect(!off.contains("id=\"phone\""))
    }

    @Test func theFormShowsANewCodeOrSaysWhyNot() async throws {
        let asked = Asked()
        try await application(phone: .init(links: [], holder: nil), shows: true, asked: asked).test(.router) {
            client in
            let response = try await client.execute(uri: "/phone?token=\(Self.token)", method: .post)
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/?token=\(Self.token)#phone")
            let refused = try await client.execute(uri: "/phone", method: .post)
            #expect(refused.status == .forbidden)
        }
        #expect(asked.count.withLock { $0 } == 1)
        try await application(phone: nil, shows: false, asked: asked).test(.router) { client in
            let response = try await client.execute(uri: "/phone?token=\(Self.token)", method: .post)
            #expect(response.status == .conflict)
            #expect(String(buffer: response.body).hasPrefix("the page for a phone is not running"))
        }
        #expect(asked.count.withLock { $0 } == 2)
    }

    @Test func filesUploadedInABatchAreOfferedWithTheNewCodeAndOlderBatchesGo() async throws {
        let uploads = FileManager.default.temporaryDirectory.appendingPathComponent("uploads-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: uploads) }
        let (first, second) = ("0123456789abcdef", "fedcba9876543210")
        let asked = Asked()
        try await application(phone: .init(links: [], holder: nil), shows: true, asked: asked, uploads: uploads).test(
            .router
        ) { client in
            for (batch, name, body) in [(first, "old.txt", "old"), (second, "b.txt", "bee"), (second, "a.jpg", "ay")] {
                let response = try await client.execute(
                    uri: "/phone-file?token=\(Self.token)&batch=\(batch)&name=\(name)",
                    method: .post,
                    body: ByteBuffer(string: body)
                )
                #expect(response.status == .ok)
            }
            let shown = try await client.execute(uri: "/phone?token=\(Self.token)&batch=\(second)", method: .post)
            #expect(shown.status == .seeOther)
            for bad in [
                "/phone-file?token=\(Self.token)&batch=XYZ&name=a",
                "/phone-file?token=\(Self.token)&batch=\(first)&name=..",
                "/phone?token=\(Self.token)&batch=0000000000000000",
            ] {
                #expect(
                    try await client.execute(uri: bad, method: .post, body: ByteBuffer(string: "x")).status
                        == .badRequest
                )
            }
        }
        let folder = uploads.appendingPathComponent("phone-" + second)
        #expect(asked.files.withLock { $0 } == ["a.jpg", "b.txt"].map { folder.appendingPathComponent($0) })
        #expect(try String(contentsOf: folder.appendingPathComponent("b.txt"), encoding: .utf8) == "bee")
        let mode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("b.txt").path)[
            .posixPermissions
        ]
        #expect(mode as? Int == 0o600)
        #expect(!FileManager.default.fileExists(atPath: uploads.appendingPathComponent("phone-" + first).path))
        // A code without files offers none, and takes the last batch away too.
        try await application(phone: .init(links: [], holder: nil), shows: true, asked: asked, uploads: uploads).test(
            .router
        ) { client in
            let shown = try await client.execute(uri: "/phone?token=\(Self.token)", method: .post)
            #expect(shown.status == .seeOther)
        }
        #expect(asked.files.withLock { $0 }.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    @Test func thePageHasTheFormForFilesHiddenUntilTheScriptShowsIt() async throws {
        let page = try await page(PageState.Phone(links: [], holder: nil))
        #expect(page.contains("<form id=\"phone-files\" hidden><label>Files the phone may download: "))
        #expect(page.contains("<input type=\"file\" id=\"phone-pick\" multiple required>"))
        #expect(PageScript.js.contains("\"/phone-file?\" + query + \"&batch=\" + batch"))
    }
}

/// The page's "Pair a device" section and `POST /pair` (docs/web.md, "The page").
@Suite struct PagePairingSectionTests {
    @Test func aWaitingLinkIsShownAsAQRCodeAndTextAndWhatCameOfItAfter() {
        let link = "huddle:pair?v=1&d=ABC&s=<x>"
        let waiting = PageHTML.pairing(.init(link: link, said: nil), token: "t")
        #expect(waiting.contains("<p class=\"link id\">huddle:pair?v=1&amp;d=ABC&amp;s=&lt;x&gt;</p>"))
        #expect(waiting.contains("src=\"data:image/png;base64,"))
        #expect(waiting.contains("<form method=\"post\" action=\"/pair?token=t\"><button>Show a new link</button>"))
        let after = PageHTML.pairing(.init(link: nil, said: "* paired with <b>Bob</b>"), token: "t")
        #expect(after.contains("<p>* paired with &lt;b&gt;Bob&lt;/b&gt;</p>"))
        #expect(!after.contains("data:image/png"))
        #expect(PageHTML.pairing(nil, token: "t").contains("<button>Show a pairing link</button>"))
    }
}
