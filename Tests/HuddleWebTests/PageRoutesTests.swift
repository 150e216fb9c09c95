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
        /// What each send found at its path when called: the path and the bytes.
        let sent = Mutex<[(path: String, to: String, bytes: [UInt8])]>([])
        let queues: Bool
        let uploads = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-web-\(UUID().uuidString)")

        let staged = StagedSends()

        init(queues: Bool = false) { self.queues = queues }
        deinit { try? FileManager.default.removeItem(at: uploads) }
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
        received: [
            HistoryEntry(at: Date(timeIntervalSince1970: 0), kind: .file, protocol: "huddle", path: "/in/report.pdf")
        ],
        chat: [
            HistoryEntry(
                at: Date(timeIntervalSince1970: 300),
                kind: .text,
                protocol: "localsend",
                from: "Pixel",
                text: "<b>hi</b>"
            ),
            HistoryEntry(
                at: Date(timeIntervalSince1970: 540),
                kind: .text,
                protocol: "huddle",
                text: "hello",
                to: "DaBob"
            ),
        ],
        outbox: [.init(id: "0badcafe", file: "photo.jpg", recipient: "DaBob", queuedAt: Date(timeIntervalSince1970: 0))]
    )

    func application(_ actions: Actions) -> some ApplicationProtocol {
        let gate = PageGate()
        gate.open(PageAccess(token: Self.token, port: 80))
        var backend = PageBackend(
            state: { Self.state },
            answer: { question, accept in
                actions.answered.withLock { $0.append("question \(question) \(accept)") }
                return true
            },
            cancel: { id in
                actions.answered.withLock { $0.append("cancel \(id)") }
                return true
            },
            send: { path, to, progress in
                let bytes = FileManager.default.contents(atPath: path).map { Array($0) } ?? []
                actions.sent.withLock { $0.append((path, to, bytes)) }
                let total = UInt64(bytes.count)
                progress(ControlProgress(completed: total / 2, total: total))
                progress(ControlProgress(completed: total, total: total))
                return PageSendResult(status: 0, lines: ["sent to \(to)"], queued: actions.queues)
            },
            uploads: actions.uploads,
            now: { Date(timeIntervalSince1970: 600) }
        )
        backend.say = { text in
            actions.answered.withLock { $0.append("say \(text)") }
            return text == "nobody" ? "nobody is connected" : nil
        }
        let staged = actions.staged
        backend.staged = { staged.staged($0) }
        backend.sendStaged = { id, to in
            guard let set = staged.staged(id) else { return nil }
            staged.record(id, said: set.paths.map { "sent \($0) to \(to)" })
            return PageSendResult(status: 0, lines: [], queued: false)
        }
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
            #expect(
                page.contains("<p class=\"said\">&lt;b&gt;hi&lt;/b&gt;</p><div class=\"detail\">5 min ago · localsend")
            )
            #expect(page.contains("<span class=\"name\">report.pdf</span><div class=\"detail\">in /in · 10 min ago"))
            #expect(page.contains("href=\"/page.css?token=\(Self.token)\""))
            // The chat, oldest first, a line said here marked as yours; the form to say one outside the live part.
            #expect(page.contains("<section id=\"chat\"><h2>Chat</h2>"))
            #expect(
                page.contains("<li class=\"text mine\"><div class=\"about\"><span class=\"name\">You to DaBob</span>")
            )
            let chat = try #require(page.range(of: "<section id=\"chat\">"))
            #expect(
                page[chat.lowerBound...].range(of: "Pixel")!.lowerBound
                    < page[chat.lowerBound...].range(of: "You to")!.lowerBound
            )
            #expect(
                page.contains("<form id=\"say\" class=\"say\" method=\"post\" action=\"/say?token=\(Self.token)\">")
            )
            let live = try #require(page.range(of: "<div id=\"live\">"))
            let form = try #require(page.range(of: "<form id=\"say\""))
            #expect(page[live.lowerBound..<form.lowerBound].contains("</div>\n"))
        }
    }

    @Test func aLineSaidOnThePageGoesToTheChatAsAFormOrIsRefusedInWords() async throws {
        let actions = Actions()
        try await application(actions).test(.router) { client in
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let said = try await client.execute(
                uri: "/say?token=\(Self.token)",
                method: .post,
                headers: form,
                body: ByteBuffer(string: "text=hello+there%2C+%3Cb%3EBob%3C%2Fb%3E")
            )
            #expect(said.status == .seeOther)
            #expect(said.headers[.location] == "/?token=\(Self.token)")
            let refused = try await client.execute(
                uri: "/say?token=\(Self.token)",
                method: .post,
                headers: form,
                body: ByteBuffer(string: "text=nobody")
            )
            #expect(refused.status == .conflict)
            #expect(String(buffer: refused.body) == "nobody is connected\n")
            let empty = try await client.execute(uri: "/say?token=\(Self.token)", method: .post, headers: form)
            #expect(empty.status == .badRequest)
        }
        #expect(actions.answered.withLock { $0 } == ["say hello there, <b>Bob</b>", "say nobody"])
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

    @Test(arguments: [false, true])
    func anUploadIsSentThroughTheDaemonAndKeptOnlyWhileQueued(queued: Bool) async throws {
        let actions = Actions(queues: queued)
        let body: [UInt8] = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try await application(actions).test(.router) { client in
            let response = try await client.execute(
                uri: "/upload?token=\(Self.token)&to=DaBob&name=caf%C3%A9%20photo.jpg",
                method: .post,
                body: ByteBuffer(bytes: body)
            )
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/x-ndjson; charset=utf-8")
            // How far the send to the device is, one line a step, then what it came to.
            let lines = String(buffer: response.body).split(separator: "\n").map { Data($0.utf8) }
            #expect(lines.count == 3)
            let steps = try lines.dropLast().map { try JSONDecoder().decode(ProgressReply.self, from: $0).progress }
            #expect(
                steps == [
                    ControlProgress(completed: 100_000, total: 200_000),
                    ControlProgress(completed: 200_000, total: 200_000),
                ]
            )
            let result = try JSONDecoder().decode(SendResultReply.self, from: try #require(lines.last))
            #expect(result == SendResultReply(status: 0, lines: ["sent to DaBob"], queued: queued))
        }
        let sent = actions.sent.withLock { $0 }
        #expect(sent.count == 1)
        #expect(sent.first?.to == "DaBob")
        #expect(sent.first?.bytes == body)
        #expect(sent.first.map { URL(fileURLWithPath: $0.path).lastPathComponent } == "café photo.jpg")
        #expect(sent.first.map { FileManager.default.fileExists(atPath: $0.path) } == queued)
        let mode = try FileManager.default.attributesOfItem(atPath: actions.uploads.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test func anUploadWithoutAFileNameOrRecipientIsRefusedAndNothingSent() async throws {
        let actions = Actions()
        try await application(actions).test(.router) { client in
            for query in ["name=..&to=DaBob", "name=a%2Fb&to=DaBob", "name=a.txt", "to=DaBob", "name=&to=DaBob"] {
                let response = try await client.execute(
                    uri: "/upload?token=\(Self.token)&\(query)",
                    method: .post,
                    body: ByteBuffer(string: "x")
                )
                #expect(response.status == .badRequest, "\(query)")
            }
            let foreign = try await client.execute(
                uri: "/upload?token=\(Self.token)&name=a.txt&to=DaBob",
                method: .post,
                headers: [HTTPField.Name("Origin")!: "http://127.0.0.1:9"],
                body: ByteBuffer(string: "x")
            )
            #expect(foreign.status == .forbidden)
        }
        #expect(actions.sent.withLock { $0 }.isEmpty)
    }

    @Test func thePageCarriesItsScriptAndTheSendPanelNamesEveryDevice() async throws {
        try await application(Actions()).test(.router) { client in
            let page = String(buffer: try await client.execute(uri: "/?token=\(Self.token)", method: .get).body)
            #expect(page.contains("<script src=\"/page.js?token=\(Self.token)\" defer></script>"))
            #expect(page.contains("<option value=\"DaBob\">DaBob (huddle)</option>"))
            #expect(
                page.contains("<option value=\"localsend:x\">&lt;img src=x onerror=alert(1)&gt; (localsend)</option>")
            )
            let script = try await client.execute(uri: "/page.js?token=\(Self.token)", method: .get)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(String(buffer: script.body).contains("new WebSocket("))
        }
    }

    struct ProgressReply: Decodable {
        var progress: ControlProgress
    }

    struct SendResultReply: Decodable, Equatable {
        var status: Int32
        var lines: [String]
        var queued: Bool
    }

    @Test func stagedFilesWaitForADeviceButtonAndTheirSendIsShown() async throws {
        let actions = Actions()
        let id = actions.staged.stage(["/home/ada/<photo>.jpg", "/home/ada/notes.pdf"])
        try await application(actions).test(.router) { client in
            let page = String(
                buffer: try await client.execute(uri: "/?token=\(Self.token)&stage=\(id)", method: .get).body
            )
            #expect(page.contains("<h2>Send these files</h2>"))
            #expect(page.contains("<span class=\"name\">&lt;photo&gt;.jpg</span>"))
            #expect(page.contains("action=\"/send?token=\(Self.token)&amp;stage=\(id)&amp;to=DaBob\""))
            #expect(page.contains("action=\"/send?token=\(Self.token)&amp;stage=\(id)&amp;to=localsend%3Ax\""))
            let sent = try await client.execute(uri: "/send?token=\(Self.token)&stage=\(id)&to=DaBob", method: .post)
            #expect(sent.status == .seeOther)
            #expect(sent.headers[.location] == "/?token=\(Self.token)&stage=\(id)")
            let after = String(
                buffer: try await client.execute(uri: "/?token=\(Self.token)&stage=\(id)", method: .get).body
            )
            #expect(after.contains("sent /home/ada/notes.pdf to DaBob"))
            let gone = try await client.execute(uri: "/send?token=\(Self.token)&stage=0000&to=DaBob", method: .post)
            #expect(gone.status == .notFound)
            let old = String(
                buffer: try await client.execute(uri: "/?token=\(Self.token)&stage=0000", method: .get).body
            )
            #expect(old.contains("no longer waiting"))
            let plain = String(buffer: try await client.execute(uri: "/?token=\(Self.token)", method: .get).body)
            #expect(!plain.contains("Send these files"))
        }
    }
}
