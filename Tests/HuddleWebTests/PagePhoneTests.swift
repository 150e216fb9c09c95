import Foundation
import HTTPTypes
import HuddleDaemon
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import HuddleWeb

/// The page's "A phone" section and `POST /phone` (docs/daemon.md, "A phone's page"): a code that waits for its
/// phone is shown as a QR image and its address; a held one says which phone holds it; the form shows a new code.
@Suite struct PagePhoneTests {
    static let token = String(repeating: "5a", count: 32)
    static let link = "http://10.0.0.2:53318/?pass=" + String(repeating: "c3", count: 16)

    /// How many times the form asked for a new code.
    final class Asked: Sendable {
        let count = Mutex(0)
    }

    func application(phone: PageState.Phone?, shows: Bool, asked: Asked) -> some ApplicationProtocol {
        let gate = PageGate()
        gate.open(PageAccess(token: Self.token, port: 80))
        var state = PageState(name: "DaAda", shortID: "ABCDEFG", directory: "/in")
        state.phone = phone
        let shown = state
        var backend = PageBackend(
            state: { shown },
            answer: { _, _ in false },
            cancel: { _ in false },
            send: { _, _ in PageSendResult(status: 1, lines: [], queued: false) },
            uploads: FileManager.default.temporaryDirectory
        )
        backend.showPhoneCode = {
            asked.count.withLock { $0 += 1 }
            return shows
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
