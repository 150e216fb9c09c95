import HTTPTypes
import HuddleLocalSendWire
import Hummingbird
import NIOCore

/// Refuses, on the share page's plain HTTP server, a request whose `Host` is not the address and port it came to
/// (``LocalSendHostRule``: DNS rebinding), with 421 and a line saying why.
struct LocalSendHostCheck: RouterMiddleware {
    typealias Context = LocalSendRequestContext

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let local = context.channel.localAddress
        guard let address = local?.ipAddress.map(LocalSendRequestContext.unmapped), let port = local?.port,
            LocalSendHostRule.accepts(authority: request.head.authority, localAddress: address, localPort: port)
        else {
            return Response(
                status: .misdirectedRequest,
                headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: "this server answers only to its own address\n"))
            )
        }
        return try await next(request, context)
    }
}
