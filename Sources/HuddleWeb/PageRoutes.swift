import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// What the page answers (docs/web.md, "Routes"), every route behind the ``PageGate``: the page, its stylesheet,
/// its state as JSON, and the forms' actions, which answer 303 back to the page so they work without a script.
struct PageRoutes: Sendable {
    let backend: PageBackend
    let gate: PageGate

    func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: PageGateMiddleware(gate: gate))
        router.get("/") { request, _ in
            let stage = request.uri.queryParameters.get("stage")
            let page = PageHTML.render(
                await backend.state(),
                token: gate.token ?? "",
                now: backend.now(),
                staged: stage.flatMap(backend.staged),
                stageAsked: stage != nil
            )
            return Self.text(page, type: "text/html")
        }
        router.get("/page.css") { _, _ in Self.text(PageStyle.css, type: "text/css") }
        router.get("/page.js") { _, _ in Self.text(PageScript.js, type: "text/javascript") }
        router.get("/state.json") { _, _ in
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.sortedKeys]
            let bytes = try encoder.encode(await backend.state())
            return Self.text(String(decoding: bytes, as: UTF8.self), type: "application/json")
        }
        router.post("/answer") { request, _ in
            let query = request.uri.queryParameters
            guard let question = query.get("question", as: Int.self), let accept = query.get("accept") else {
                return Self.text("answer needs question=N and accept=yes or no\n", type: "text/plain", .badRequest)
            }
            _ = await backend.answer(question, accept == "yes")
            return back()
        }
        router.post("/cancel") { request, _ in
            guard let id = request.uri.queryParameters.get("id") else {
                return Self.text("cancel needs id=ID\n", type: "text/plain", .badRequest)
            }
            _ = await backend.cancel(id)
            return back()
        }
        router.post("/send") { request, _ in
            let query = request.uri.queryParameters
            guard let stage = query.get("stage"), let to = query.get("to"), !to.isEmpty else {
                return Self.text("send needs stage=ID and to=DEVICE\n", type: "text/plain", .badRequest)
            }
            guard await backend.sendStaged(stage, to) != nil else {
                return Self.text("no such files are waiting: hand them over again\n", type: "text/plain", .notFound)
            }
            return Response(
                status: .seeOther,
                headers: [.location: "/?token=\(gate.token ?? "")&stage=\(HTMLText.queryValue(stage))"]
            )
        }
        router.post("/say") { request, _ in
            // The form's body, `text=…` (application/x-www-form-urlencoded): a line of at most 4,096 characters.
            struct Said: Decodable { let text: String }
            let body = try await request.body.collect(upTo: 64 * 1024)
            guard let said = try? URLEncodedFormDecoder().decode(Said.self, from: String(buffer: body)) else {
                return Self.text("say needs text=LINE as a form\n", type: "text/plain", .badRequest)
            }
            if let refusal = await backend.say(said.text) {
                return Self.text(refusal + "\n", type: "text/plain", .conflict)
            }
            return back()
        }
        router.post("/pair") { _, _ in
            if let refusal = await backend.issuePairingLink() {
                return Self.text(refusal + "\n", type: "text/plain", .conflict)
            }
            return Response(status: .seeOther, headers: [.location: "/?token=\(gate.token ?? "")#pairing"])
        }
        router.post("/phone") { request, _ in
            let batch = request.uri.queryParameters.get("batch")
            guard let files = PhoneFiles(uploads: backend.uploads).files(batch) else {
                return Self.text("no such batch of files\n", type: "text/plain", .badRequest)
            }
            if let refusal = await backend.showPhoneCode(files) {
                return Self.text(refusal + "\n", type: "text/plain", .conflict)
            }
            return Response(status: .seeOther, headers: [.location: "/?token=\(gate.token ?? "")#phone"])
        }
        router.post("/phone-file") { request, _ in
            let query = request.uri.queryParameters
            guard let name = PageUpload.fileName(query.get("name")), let batch = query.get("batch"),
                PhoneFiles.isBatch(batch)
            else {
                return Self.text(
                    "phone-file needs name=FILE and batch=16 hex digits\n",
                    type: "text/plain",
                    .badRequest
                )
            }
            try await PhoneFiles(uploads: backend.uploads).receive(request, name: name, batch: batch)
            return Self.text("{}", type: "application/json")
        }
        router.post("/upload") { request, _ in
            let query = request.uri.queryParameters
            guard let name = PageUpload.fileName(query.get("name")), let to = query.get("to"), !to.isEmpty else {
                return Self.text(
                    "upload needs name=FILE (one name, no slash) and to=DEVICE\n",
                    type: "text/plain",
                    .badRequest
                )
            }
            let upload = PageUpload(backend: backend)
            let lines = upload.send(try await upload.store(request, name: name), to: to)
            let body = ResponseBody { writer in
                for await line in lines { try await writer.write(ByteBuffer(string: line)) }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson; charset=utf-8"], body: body)
        }
        return router
    }

    /// 303 to the page (with its token): a form's answer, which the browser follows with a GET.
    func back() -> Response {
        Response(status: .seeOther, headers: [.location: "/?token=\(gate.token ?? "")"])
    }

    static func text(_ text: String, type: String, _ status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "\(type); charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }
}
