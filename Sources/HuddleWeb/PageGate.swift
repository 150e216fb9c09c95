import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// The page's ``PageAccess`` once its port is known, applied to every request before any route (docs/web.md,
/// "Access"): a refused request gets 403 with the refusal's words and nothing of the page. Every answer, refused
/// or not, carries the headers that keep the page to itself: no script, style or image from elsewhere, no frame,
/// no referrer to other sites, no cache.
final class PageGate: Sendable {
    let access = Mutex<PageAccess?>(nil)

    func open(_ opened: PageAccess) { access.withLock { $0 = opened } }

    var token: String? { access.withLock { $0?.token } }

    static let headers: HTTPFields = [
        .contentSecurityPolicy:
            "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data: blob:; "
            + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with a form, which the
        // gate must refuse; the page links nowhere else.
        HTTPField.Name("Referrer-Policy")!: "same-origin",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        .cacheControl: "no-store",
    ]

    /// The verdict on `request`: nil lets it in. Before the server listens nothing is let in.
    func refusal(of request: Request) -> PageAccess.Refusal? {
        guard let access = access.withLock({ $0 }) else { return .noToken }
        let host = request.head.authority
        let origin = request.headers[HTTPField.Name("Origin")!]
        return access.check(host: host, origin: origin, token: request.uri.queryParameters.get("token"))
    }
}

/// ``PageGate`` as the router's first middleware.
struct PageGateMiddleware<Context: RequestContext>: RouterMiddleware {
    let gate: PageGate

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response: Response
        if let refusal = gate.refusal(of: request) {
            response = Response(
                status: .forbidden,
                headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: refusal.rawValue + "\n"))
            )
        } else {
            response = try await next(request, context)
        }
        for field in PageGate.headers { response.headers[field.name] = field.value }
        return response
    }
}
