import Foundation
import HuddleBase
import HuddleForeign
import HuddleLocalSendWire
import Hummingbird
import NIOCore

/// LocalSend's HTTP API as this device serves it (docs/localsend.md, "The API"): info, register, and the
/// receiving half (prepare-upload, upload, cancel).
struct LocalSendRoutes: Sendable {
    let service: LocalSendService

    var inbox: LocalSendInbox { service.inbox }
    var limits: LocalSendLimits { service.configuration.limits }

    func router() -> Router<LocalSendRequestContext> {
        let router = Router(context: LocalSendRequestContext.self)
        add(to: router)
        return router
    }

    /// Adds the API's routes to `router`.
    func add(to router: Router<LocalSendRequestContext>) {
        // Version 1's info too: some senders ask it before every upload.
        for path in ["/api/localsend/v1/info", "\(Self.api)/info"] {
            router.get(RouterPath(path)) { _, _ in json(service.ownInfo(announce: nil)) }
        }
        addReceiving(to: router, register: true)
    }

    static let api = "/api/localsend/v2"

    /// Adds the receiving half (prepare-upload, upload, cancel; and register, for apps) to `router`: on the API's
    /// server, and on the share page's for `huddle share --receive`.
    func addReceiving(to router: Router<LocalSendRequestContext>, register withRegister: Bool) {
        let api = Self.api
        let answers = [("prepare-upload", prepareUpload)] + (withRegister ? [("register", register)] : [])
        for (path, answer) in answers {
            router.post(RouterPath("\(api)/\(path)")) { request, context in
                do { return try await answer(request, context) } catch let refused as LocalSendRefusal {
                    return refusal(refused)
                }
            }
        }
        router.post(RouterPath("\(api)/upload")) { request, context in
            await upload(request, context)
        }
        router.post(RouterPath("\(api)/cancel")) { request, context in
            let session = request.uri.queryParameters.get("sessionId")
            let cancelled = await inbox.cancel(session: session, host: context.remoteHost ?? "")
            return cancelled ? Response(status: .ok) : refusal(.init(403, "no such session from this address"))
        }
    }

    func register(_ request: Request, _ context: LocalSendRequestContext) async throws -> Response {
        let info = try await body(of: request, upTo: limits.maximumInfoBytes) {
            try LocalSendMessages.deviceInfo(from: $0, limits: limits)
        }
        if let host = context.remoteHost {
            // Proven when the client certificate is the fingerprint's: only then may it move an HTTPS device here.
            let shown = await context.clientFingerprint()
            service.heard(
                info,
                from: host,
                proven: shown.map { LocalSendFingerprint.matches($0, info.fingerprint) } ?? false
            )
        }
        return json(service.ownInfo(announce: nil))
    }

    /// The body of `request` (at most `limit` bytes) as `parse` reads it; one it cannot read throws the refusal
    /// (400) that says why.
    func body<Value>(
        of request: Request,
        upTo limit: Int,
        _ parse: (ByteBufferView) throws -> Value
    ) async throws -> Value {
        let body = try await request.body.collect(upTo: limit)
        do { return try parse(body.readableBytesView) } catch { throw LocalSendRefusal(400, "\(error)") }
    }

    func prepareUpload(_ request: Request, _ context: LocalSendRequestContext) async throws -> Response {
        let offer = try await body(of: request, upTo: limits.maximumPrepareUploadBytes) {
            try LocalSendMessages.prepareUpload(from: $0, limits: limits)
        }
        guard let host = context.remoteHost else { return refusal(.init(400, "no address")) }
        let peer = service.peer(for: offer.info, host: host, proven: await context.clientFingerprint())
        switch await inbox.prepare(offer, from: peer, host: host) {
        case .accepted(let answer): return json(answer)
        case .textShown: return Response(status: .noContent)
        case .refused(let status, let reason): return refusal(.init(status, reason))
        }
    }

    /// Takes one file's bytes into a partial file, then its name (nothing overwritten); the SHA-256 is checked
    /// when the sender gave one.
    func upload(_ request: Request, _ context: LocalSendRequestContext) async -> Response {
        let query = request.uri.queryParameters
        let sessionID = query.get("sessionId")
        let started = await inbox.startUpload(
            session: sessionID,
            file: query.get("fileId"),
            token: query.get("token"),
            host: context.remoteHost ?? ""
        )
        guard case .success(let (offer, file, directory)) = started, let sessionID else {
            if case .failure(let refused) = started { return refusal(refused) }
            return refusal(.init(400, "missing parameters"))
        }
        let writer: ReceivedFileWriter
        do {
            writer = try ReceivedFileWriter(name: file.name, in: directory, expectedSize: file.size)
        } catch {
            await inbox.finishUpload(session: sessionID, file: file.id, succeeded: false)
            service.emit(.failed(offerID: offer.id, reason: "\(error)"))
            return refusal(.init(500, "\(error)"))
        }
        var reported: UInt64 = 0
        var chunks = 0
        var lastCheck = ContinuousClock.now
        do {
            for try await buffer in request.body {
                try writer.write(buffer.readableBytesView)
                // Reading on only when the limit allows: TCP holds the sender back meanwhile.
                try await service.configuration.pacing.pace(
                    buffer.readableBytes,
                    .receiving,
                    device: offer.from.fingerprint
                )
                chunks += 1
                // Also tells the inbox the upload progresses (its idle deadline), at least every 5 s.
                if chunks % 64 == 0 || lastCheck.duration(to: .now) > .seconds(5) {
                    lastCheck = .now
                    if await !inbox.isCurrent(sessionID) { throw LocalSendError.cancelled }
                }
                if writer.written - reported >= 1 << 20 || writer.written == file.size {
                    reported = writer.written
                    service.emit(
                        .progress(
                            .init(
                                offerID: offer.id,
                                fileName: file.name,
                                completed: reported,
                                total: file.size,
                                isOutgoing: false
                            )
                        )
                    )
                }
            }
            let url = try writer.finish(expectedSHA256: file.sha256)
            await inbox.finishUpload(session: sessionID, file: file.id, succeeded: true)
            service.emit(.received(offerID: offer.id, file: file, at: url))
            return Response(status: .ok)
        } catch {
            writer.abandon()
            await inbox.finishUpload(session: sessionID, file: file.id, succeeded: false)
            // The connection's own error (a sender that cancelled closes it) said in words.
            var why =
                error is LocalSendError || error is FileTransferError
                ? "\(error)" : "the upload broke off after \(writer.written) of \(file.size) bytes (\(error))"
            if !why.hasSuffix("nothing kept") { why += "; nothing kept" }
            service.emit(.failed(offerID: offer.id, reason: "\(file.name) from \(offer.from.name): \(why)"))
            return refusal(.init(error is LocalSendError ? 403 : 400, "\(error)"), closing: context.channel)
        }
    }
}

/// A JSON answer.
func json(_ value: some Encodable) -> Response {
    let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
    return Response(
        status: .ok,
        headers: [.contentType: "application/json"],
        body: .init(byteBuffer: ByteBuffer(bytes: data))
    )
}

/// A refusal with LocalSend's `{"message": …}` body.
func refusal(_ refused: LocalSendRefusal) -> Response {
    let data = (try? JSONEncoder().encode(["message": refused.reason])) ?? Data()
    return Response(
        status: .init(code: refused.status),
        headers: [.contentType: "application/json"],
        body: .init(byteBuffer: ByteBuffer(bytes: data))
    )
}

/// A refusal sent before the request's body was all read, closing the connection once it is written: nothing reads
/// the rest, and a connection left with bytes unread never sees the sender's close (the server's shutdown would
/// wait for it for ever).
func refusal(_ refused: LocalSendRefusal, closing channel: any Channel) -> Response {
    let data = (try? JSONEncoder().encode(["message": refused.reason])) ?? Data()
    let buffer = ByteBuffer(bytes: data)
    return Response(
        status: .init(code: refused.status),
        headers: [.contentType: "application/json", .connection: "close"],
        body: ResponseBody(contentLength: buffer.readableBytes) { writer in
            try await writer.write(buffer)
            try await writer.finish(nil)
            channel.close(promise: nil)
        }
    )
}
