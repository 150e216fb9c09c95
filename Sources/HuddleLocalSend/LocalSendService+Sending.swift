import Crypto
public import Foundation
import HuddleBase
public import HuddleForeign
import HuddleLocalSendWire
import HuddleWire
import NIOConcurrencyHelpers
import NIOHTTP1

extension LocalSendService {
    /// Sends the files: prepare-upload (with the PIN when given), then each accepted file in turn, every
    /// connection pinned to the peer's fingerprint. A failure or a cancel tells the peer (`/cancel`, before the upload
    /// stops: ``runUploads(session:at:_:)``).
    public func send(files: [URL], to peer: ForeignPeer, pin: String?) async throws {
        let target = try target(for: peer)
        var metadata: [String: LocalSendFileMetadata] = [:]
        var byID: [String: LocalSendChosenFile] = [:]
        for url in files {
            let chosen = try await self.chosen(url)
            metadata[chosen.metadata.id] = chosen.metadata
            byID[chosen.metadata.id] = chosen
        }
        let offerID = LocalSendInbox.token()
        guard let answer = try await prepareUpload(metadata, at: target, pin: pin) else { return }
        let ordered = byID.sorted { $0.value.url.path < $1.value.url.path }
        try await runUploads(session: answer.sessionId, at: target) {
            for (id, chosen) in ordered {
                guard let token = answer.files[id] else { continue }  // the receiver skipped it
                try await self.upload(chosen, token: token, session: answer.sessionId, to: target, offerID: offerID)
            }
        }
    }

    /// Sends a text message: one `text/plain` file whose preview holds the text; the receiver shows it (204) or
    /// asks for the bytes too.
    public func send(text: String, to peer: ForeignPeer, pin: String?) async throws {
        let target = try target(for: peer)
        let bytes = Array(text.utf8)
        let id = LocalSendInbox.token()
        let file = LocalSendFileMetadata(
            id: id,
            fileName: "\(id.prefix(8)).txt",
            size: UInt64(bytes.count),
            fileType: "text/plain",
            sha256: Hex.encode(SHA256.hash(data: bytes)),
            preview: text
        )
        guard let answer = try await prepareUpload([id: file], at: target, pin: pin), let token = answer.files[id]
        else { return }
        let path = "/api/localsend/v2/upload?sessionId=\(answer.sessionId)&fileId=\(id)&token=\(token)"
        let response = try await client.request(.POST, target, path: path, body: .bytes(bytes))
        guard response.status == 200 else {
            throw LocalSendError.rejectedUpload(status: response.status, file: "the text")
        }
    }

    /// Starts hashing the files (their SHA-256 goes in the offer) while the device is still being found: a
    /// gigabyte takes most of a second, which then overlaps the search, or a person picking from the list.
    public func prepareToSend(files: [URL]) {
        for url in files { digests.start(url) }
    }

    /// Stops the hashing ``prepareToSend(files:)`` began: the files go to another kind of peer.
    public func cancelPreparedSends() { digests.cancelAll() }

    /// Describes a file for an offer or the share: a new id, its size, type and SHA-256, and which file it is
    /// (``LocalSendFileIdentity``), the same before and after the hashing.
    func chosen(_ url: URL) async throws -> LocalSendChosenFile {
        let identity = try LocalSendFileIdentity(of: url)
        let (size, sha256) = try await digests.digest(of: url)
        guard try LocalSendFileIdentity(of: url) == identity else {
            throw LocalSendError.fileReplaced(url.lastPathComponent)
        }
        let metadata = LocalSendFileMetadata(
            id: LocalSendInbox.token(),
            fileName: url.lastPathComponent,
            size: size,
            fileType: Self.mimeType(of: url),
            sha256: sha256
        )
        return LocalSendChosenFile(url: url, metadata: metadata, identity: identity)
    }

    func target(for peer: ForeignPeer) throws -> LocalSendHTTPClient.Target {
        guard let device = state.withLockedValue({ $0.devices.device(peer.id.value) }) else {
            throw LocalSendError.unreachable("\(peer.name) is no longer heard from")
        }
        if !device.isHTTPS && !configuration.allowsPlainHTTP { throw LocalSendError.plainHTTPRefused(peer.name) }
        // Trust was decided on the device as the user chose it: never send elsewhere, or over another scheme.
        guard "\(device.host):\(device.port)" == peer.address, device.isHTTPS == !peer.isPlainHTTP else {
            throw LocalSendError.unreachable(
                "\(peer.name) now answers at \(device.isHTTPS ? "https" : "http")://\(device.host):\(device.port), not "
                    + "where it was chosen (\(peer.address)); look for it again"
            )
        }
        return .init(
            host: device.host,
            port: device.port,
            https: device.isHTTPS,
            fingerprint: device.isHTTPS ? device.key : nil
        )
    }

    /// Asks the receiver; nil when it needs nothing more (204).
    func prepareUpload(
        _ files: [String: LocalSendFileMetadata],
        at target: LocalSendHTTPClient.Target,
        pin: String?
    ) async throws -> LocalSendPrepareUploadAnswer? {
        let request = LocalSendPrepareUpload(info: ownInfo(announce: nil), files: files)
        let body = Array(try JSONEncoder().encode(request))
        let query = pin.map { "?pin=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") } ?? ""
        let response = try await client.request(
            .POST,
            target,
            path: "/api/localsend/v2/prepare-upload" + query,
            body: .bytes(body),
            contentType: "application/json"
        )
        switch response.status {
        case 200:
            do {
                return try LocalSendMessages.prepareUploadAnswer(from: response.body, limits: configuration.limits)
            } catch {
                throw LocalSendError.badAnswer("\(error)")
            }
        case 204: return nil
        case 401: throw pin == nil ? LocalSendError.pinRequired : LocalSendError.pinRejected
        case 403: throw LocalSendError.declined
        case 409: throw LocalSendError.busy
        case 429: throw LocalSendError.tooManyRequests
        default: throw LocalSendError.unexpectedStatus(response.status, "the offer")
        }
    }

    func upload(
        _ chosen: LocalSendChosenFile,
        token: String,
        session: String,
        to target: LocalSendHTTPClient.Target,
        offerID: String
    ) async throws {
        let file = chosen.metadata
        let path = "/api/localsend/v2/upload?sessionId=\(session)&fileId=\(file.id)&token=\(token)"
        let emit = broadcast
        let name = file.fileName
        let reached = NIOLockedValueBox<UInt64>(0)
        let response = try await client.request(
            .POST,
            target,
            path: path,
            body: .file(chosen.url, size: file.size, identity: chosen.identity) { sent in
                reached.withLockedValue { $0 = sent }
                emit.yield(
                    .progress(
                        .init(
                            offerID: offerID,
                            fileName: name,
                            completed: sent,
                            total: file.size,
                            isOutgoing: true
                        )
                    )
                )
            },
            contentType: "application/octet-stream"
        )
        guard response.status == 200 else {
            // An answer before the whole file was sent: the receiver stopped taking it.
            if reached.withLockedValue({ $0 }) < file.size { throw UploadStopped(status: response.status, file: name) }
            throw LocalSendError.rejectedUpload(status: response.status, file: name)
        }
    }

    /// A MIME type from the file's extension, for the receiver's display; octet-stream when unknown.
    static func mimeType(of url: URL) -> String {
        let types = [
            "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
            "heic": "image/heic", "pdf": "application/pdf", "txt": "text/plain", "md": "text/markdown",
            "mp4": "video/mp4", "mov": "video/quicktime", "mp3": "audio/mpeg", "zip": "application/zip",
            "html": "text/html", "json": "application/json",
        ]
        return types[url.pathExtension.lowercased()] ?? "application/octet-stream"
    }
}

/// A file chosen to be sent or shared: where, what the receiver is told, and which file it was then.
struct LocalSendChosenFile: Sendable {
    let url: URL
    let metadata: LocalSendFileMetadata
    let identity: LocalSendFileIdentity
}
