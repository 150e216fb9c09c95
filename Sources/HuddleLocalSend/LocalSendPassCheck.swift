import HTTPTypes
import HuddleForeign
import Hummingbird
import NIOCore

/// Refuses, on the page's plain HTTP server when it is one browser's, a request that does not bring the pass in
/// force from the address that holds it (``BrowserPass``), with 403 and a line saying why.
struct LocalSendPassCheck: RouterMiddleware {
    typealias Context = LocalSendRequestContext
    let passes: BrowserPasses

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let given = request.uri.queryParameters.get("pass")
        guard let refusal = passes.admit(given, from: context.remoteHost ?? "") else {
            return try await next(request, context)
        }
        return Response(
            status: .forbidden,
            headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: refusal.rawValue + "\n"))
        )
    }
}
