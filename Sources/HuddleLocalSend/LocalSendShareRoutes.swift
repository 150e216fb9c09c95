import Foundation
import HTTPTypes
import HuddleBase
import HuddleForeign
import HuddleLocalSendWire
import Hummingbird
import NIOCore
import NIOFileSystem

/// LocalSend's download API (prepare-download, download) for `huddle share`, on the HTTPS server for apps and on a
/// plain HTTP server with the page for browsers, which refuse a self-signed certificate (docs/localsend.md,
/// "Sharing").
struct LocalSendShareRoutes: Sendable {
    let service: LocalSendService
    let share: LocalSendShare

    func add(to router: Router<LocalSendRequestContext>, page: Bool) {
        let api = "/api/localsend/v2"
        if page {
            // Browsers reach this server: a request under another site's name is refused (DNS rebinding).
            router.add(middleware: LocalSendHostCheck())
            // A phone's page: nothing without the pass, not even the script.
            if let passes = service.configuration.share?.pass {
                router.add(middleware: LocalSendPassCheck(passes: passes))
            }
            let headers: HTTPFields = [
                .contentSecurityPolicy:
                    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'",
                .init("X-Content-Type-Options")!: "nosniff",
                .cacheControl: "no-store",
            ]
            let receives = service.configuration.share?.receives == true
            for (path, type) in [("/", "text/html"), ("/share.js", "text/javascript")] {
                var typed = headers
                typed[.contentType] = "\(type); charset=utf-8"
                let fields = typed
                router.get(RouterPath(path)) { request, _ in
                    // The pass, already checked, goes on to the script's address; it is hex, so nothing to escape.
                    let pass = request.uri.queryParameters.get("pass").map { String($0) }
                    let shares = !(await share.files.isEmpty)
                    let text =
                        path == "/"
                        ? LocalSendSharePage.html(shares: shares, receives: receives, pass: pass)
                        : LocalSendSharePage.script
                    return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(string: text)))
                }
            }
            router.get(RouterPath("\(api)/info")) { _, _ in json(service.ownInfo(announce: nil)) }
        }
        router.post(RouterPath("\(api)/prepare-download")) { request, context in
            let query = request.uri.queryParameters
            let prepared = await share.prepare(
                session: query.get("sessionId"),
                pin: query.get("pin"),
                host: context.remoteHost ?? "",
                client: request.headers[.userAgent],
                letIn: page && service.configuration.share?.pass != nil
            )
            switch prepared {
            case .refused(let refused): return refusal(refused)
            case .admitted(let session):
                return json(
                    LocalSendPrepareDownloadAnswer(
                        info: service.ownInfo(announce: nil),
                        sessionId: session,
                        files: await share.files
                    )
                )
            }
        }
        router.get(RouterPath("\(api)/download")) { request, context in
            let query = request.uri.queryParameters
            let host = context.remoteHost ?? ""
            guard
                let chosen = await share.file(
                    session: query.get("sessionId"),
                    file: query.get("fileId"),
                    host: host
                )
            else { return refusal(.init(403, "no such session or file from this address")) }
            return await download(chosen, to: host)
        }
    }

    /// The file as an attachment under its name, streamed from disk; `downloaded` once all of it is written. The
    /// file must still be the one shared (``LocalSendFileIdentity``): one replaced since (a link swapped in) is
    /// refused with 410 and said, before any byte of it is read.
    func download(_ chosen: LocalSendChosenFile, to host: String) async -> Response {
        let file = chosen.metadata
        let url = chosen.url
        // Checked before answering (410 for a file replaced), and again on the descriptor the bytes come from.
        do {
            try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(url.path)) { handle in
                try await chosen.identity.check(handle, name: file.fileName)
            }
        } catch {
            service.emit(.failed(offerID: file.id, reason: "\(file.fileName): \(error)"))
            return refusal(.init(410, "the file is no longer shared"))
        }
        let ascii = String(
            file.fileName.unicodeScalars.map {
                $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 0x20 ? Character($0) : "_"
            }
        )
        let encoded = file.fileName.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ascii
        let headers: HTTPFields = [
            .contentType: file.fileType,
            .contentDisposition: "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)",
            .init("X-Content-Type-Options")!: "nosniff",
            .cacheControl: "no-store",
        ]
        let emit = service.broadcast
        let body = ResponseBody(contentLength: Int(file.size)) { writer in
            var sent: UInt64 = 0
            try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(url.path)) { handle in
                try await chosen.identity.check(handle, name: file.fileName)
                for try await chunk in handle.readChunks(in: 0..<Int64(file.size), chunkLength: .kibibytes(256)) {
                    sent += UInt64(chunk.readableBytes)
                    try await writer.write(chunk)
                }
            }
            try await writer.finish(nil)
            if sent == file.size { emit.yield(.downloaded(fileName: file.fileName, by: host)) }
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
