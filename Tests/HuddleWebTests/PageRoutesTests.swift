import Foundation
import HTTPTypes
import HuddleDaemon
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

@testable import HuddleWeb

/// The page's routes in memory (Hummingbird's router test framework, whose requests say `Host: localhost`: the
/// gate is opened at port 80 so that name is the page's).
@Suite struct PageRoutesTests {
    final class Actions: Sendable {
        let answered = Mutex<[String]>([])
    }

    static let token = String(repeating: "5a", count: 32)
    static let state = PageState(
        name: "DaAda",
        shortID: "ABCDEFG",
        directory: "/home/ada/Downloads",
        devices: [
            DaemonDevice(
                name: "DaBob",
                sendName: "DaBob",
                protocol: "huddle",
                id: "1234567",
                trust: "paired",
                here: true
            ),
            DaemonDevice(
                name: "<img src=x onerror=alert(1)>",
                sendName: "localsend:x",
                protocol: "localsend",
                id: "ffee",
                trust: "not pinned",
                here: true
            ),
        ],
        questions: [.init(id: 3, lines: ["DaCy wants to send notes.txt (12 bytes)."])],
        outbox: [.init(id: "0badcafe", file: "photo.jpg", recipient: "DaBob", queuedAt: Date(timeIntervalSince1970: 0))]
    )

    func application(_ actions: Actions) -> some ApplicationProtocol {
        let gate = PageGate()
        gate.open(PageAccess(token: Self.token, port: 80))
        let backend = PageBackend(
            state: { Self.state },
            answer: { question, accept in
                actions.answered.withLock { $0.append("question \(question) \(accept)") }
                return true
            },
            cancel: { id in
                actions.answered.withLock { $0.append("cancel \(id)") }
                return true
            },
            now: { Date(timeIntervalSince1970: 600) }
        )
        return Application(router: PageRoutes(backend: backend, gate: gate).router())
    }

    @Test func thePageAsServedListsTheDevicesQuestionsAndOutboxWithEveryNameEscaped() async throws {
        try await application(Actions()).test(.router) { client in
            let response = try await client.execute(uri: "/?token=\(Self.token)", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            let page = String(buffer: response.body)
            #expect(page.contains("<span class=\"name\">DaBob</span>"))
            #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;"))
            #expect(!page.contains("<img src=x"))
            #expect(page.contains("DaCy wants to send notes.txt (12 bytes)."))
            #expect(page.contains("action=\"/answer?token=\(Self.token)&amp;question=3&amp;accept=yes\""))
            #expect(page.contains("action=\"/cancel?token=\(Self.token)&amp;id=0badcafe\""))
            #expect(page.contains("queued 10 min ago"))
            #expect(page.contains("href=\"/page.css?token=\(Self.token)\""))
        }
    }

    @Test func everyAnswerKeepsThePageToItself() async throws {
        try await application(Actions()).test(.router) { client in
            for uri in ["/?token=\(Self.token)", "/", "/page.css?token=\(Self.token)"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'none'") == true)
                #expect(response.headers[.cacheControl] == "no-store")
                #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin")
            }
        }
    }

    @Test func withoutTheTokenOrFromAnotherOriginNothingIsShownOrDone() async throws {
        let actions = Actions()
        try await application(actions).test(.router) { client in
            let bare = try await client.execute(uri: "/", method: .get)
            #expect(bare.status == .forbidden)
            #expect(String(buffer: bare.body) == PageAccess.Refusal.noToken.rawValue + "\n")
            #expect(try await client.execute(uri: "/state.json?token=nope", method: .get).status == .forbidden)
            let evil = try await client.execute(
                uri: "/answer?token=\(Self.token)&question=3&accept=yes",
                method: .post,
                headers: [HTTPField.Name("Origin")!: "http://evil.example"]
            )
            #expect(evil.status == .forbidden)
            #expect(!String(buffer: evil.body).contains("DaBob"))
        }
        #expect(actions.answered.withLock { $0 }.isEmpty)
    }

    @Test func theFormsActAndSendTheBrowserBackToThePage() async throws {
        let actions = Actions()
        try await application(actions).test(.router) { client in
            let accepted = try await client.execute(
                uri: "/answer?token=\(Self.token)&question=3&accept=yes",
                method: .post,
                headers: [HTTPField.Name("Origin")!: "http://localhost"]
            )
            #expect(accepted.status == .seeOther)
            #expect(accepted.headers[.location] == "/?token=\(Self.token)")
            _ = try await client.execute(uri: "/answer?token=\(Self.token)&question=4&accept=no", method: .post)
            _ = try await client.execute(uri: "/cancel?token=\(Self.token)&id=0badcafe", method: .post)
            let bad = try await client.execute(uri: "/answer?token=\(Self.token)", method: .post)
            #expect(bad.status == .badRequest)
        }
        #expect(actions.answered.withLock { $0 } == ["question 3 true", "question 4 false", "cancel 0badcafe"])
    }

    @Test func theStateIsJSONForScripts() async throws {
        try await application(Actions()).test(.router) { client in
            let response = try await client.execute(uri: "/state.json?token=\(Self.token)", method: .get)
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            let json =
                try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any]
            #expect(json?["name"] as? String == "DaAda")
            #expect(
                (json?["devices"] as? [[String: Any]])?.map { $0["name"] as? String } == [
                    "DaBob", "<img src=x onerror=alert(1)>",
                ]
            )
        }
    }
}
