import Foundation
import HuddleBase
import HuddleForeign
import HuddleLocalSendWire
import NIOConcurrencyHelpers
import NIOCore
import NIOFileSystem
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The client side of LocalSend's API: one request per connection, HTTP/1.1 by SwiftNIO's codec, over TLS that
/// pins the peer's certificate fingerprint during the handshake — before a byte of the request is sent
/// (docs/localsend.md, "Fingerprints"). A general HTTP client cannot pin a self-signed certificate by its hash,
/// which is why this one is built from NIO's parts.
struct LocalSendHTTPClient: Sendable {
    /// What a request sends after its head.
    enum Body: Sendable {
        case none
        case bytes([UInt8])
        /// A file's whole content, read without blocking; `progress` gets the bytes sent so far.
        case file(URL, size: UInt64, identity: LocalSendFileIdentity, progress: @Sendable (UInt64) -> Void)
    }

    struct Response: Sendable {
        var status: Int
        var body: [UInt8]
        /// The fingerprint the peer's certificate has (nil over plain HTTP).
        var presentedFingerprint: String?
    }

    /// Where a request goes.
    struct Target: Sendable {
        var host: String
        var port: Int
        var https: Bool
        /// The fingerprint the certificate must have; nil takes whatever it has (and reports it).
        var fingerprint: String?
    }

    let sslContext: NIOSSLContext
    let group: any EventLoopGroup
    let streams: any ForeignStreams
    var connectTimeout: TimeAmount
    /// Paces the files' bytes sent (nil: not limited).
    var pacing = TransferPacers()

    init(
        credentials: LocalSendCredentials,
        group: any EventLoopGroup,
        streams: any ForeignStreams,
        connectTimeout: TimeAmount = .seconds(5)
    ) throws {
        sslContext = try NIOSSLContext(configuration: try credentials.clientTLS())
        self.group = group
        self.streams = streams
        self.connectTimeout = connectTimeout
    }

    /// Sends one request and returns the answer, whose body may be at most `responseLimit` bytes.
    func request(
        _ method: HTTPMethod,
        _ target: Target,
        path: String,
        body: Body = .none,
        contentType: String? = nil,
        responseLimit: Int = 2 * 1024 * 1024
    ) async throws -> Response {
        let pin = FingerprintPin(expected: target.fingerprint)
        let collector = ResponseCollector(limit: responseLimit)
        let channel: any Channel
        do {
            channel = try await streams.connect(
                host: target.host,
                port: target.port,
                group: group,
                timeout: connectTimeout
            ) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if target.https {
                        let tls = try NIOSSLClientHandler(
                            context: sslContext,
                            serverHostname: nil,
                            customVerificationCallback: pin.verify
                        )
                        try channel.pipeline.syncOperations.addHandler(tls)
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(collector)
                    return channel
                }
            }
        } catch {
            throw LocalSendError.unreachable("\(target.host):\(target.port): \(error)")
        }
        let response = collector.response(on: channel.eventLoop)
        return try await withTaskCancellationHandler {
            defer { channel.close(promise: nil) }
            var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
            head.headers.add(name: "Host", value: "\(target.host):\(target.port)")
            head.headers.add(name: "Connection", value: "close")
            if let contentType { head.headers.add(name: "Content-Type", value: contentType) }
            do {
                switch body {
                case .none:
                    if method == .POST { head.headers.add(name: "Content-Length", value: "0") }
                    try await channel.writeAndFlush(HTTPClientRequestPart.head(head))
                case .bytes(let bytes):
                    head.headers.add(name: "Content-Length", value: "\(bytes.count)")
                    channel.write(HTTPClientRequestPart.head(head), promise: nil)
                    try await channel.writeAndFlush(
                        HTTPClientRequestPart.body(.byteBuffer(channel.allocator.buffer(bytes: bytes)))
                    )
                case .file(let url, let size, let identity, let progress):
                    head.headers.add(name: "Content-Length", value: "\(size)")
                    let start = head
                    try await stream(
                        url,
                        size: size,
                        identity: identity,
                        to: target.fingerprint,
                        on: channel,
                        until: response,
                        progress: progress
                    ) { try await channel.writeAndFlush(HTTPClientRequestPart.head(start)) }
                }
                try await channel.writeAndFlush(HTTPClientRequestPart.end(nil))
            } catch {
                // Nothing was sent of a file replaced since it was chosen: said as it is.
                if (error as? LocalSendError)?.code == .fileReplaced { throw error }
                // A peer may answer (403, 409) and close before the body is all sent: its answer is what counts.
                if let early = try? await response.get() { return early.with(pin.presented) }
                if let mismatch = pin.mismatch { throw mismatch }
                throw LocalSendError.unreachable("\(target.host):\(target.port): \(error)")
            }
            do {
                return try await response.get().with(pin.presented)
            } catch {
                if let mismatch = pin.mismatch { throw mismatch }
                throw error
            }
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    /// Opens the file, checks it is still `identity` (``LocalSendFileIdentity``), calls `start` (which writes the
    /// request's head), then writes the file in 256 KiB chunks, at most four writes in flight, stopping if the
    /// peer answers first.
    func stream(
        _ url: URL,
        size: UInt64,
        identity: LocalSendFileIdentity,
        to device: String?,
        on channel: any Channel,
        until response: EventLoopFuture<Response>,
        progress: @escaping @Sendable (UInt64) -> Void,
        start: () async throws -> Void
    ) async throws {
        let answered = NIOLockedValueBox(false)
        response.whenComplete { _ in
            answered.withLockedValue { $0 = true }
            // An answer before the end (a refusal, the receiver's cancel) is kept by now; closing fails the writes
            // in flight, which a receiver that stopped reading would otherwise leave waiting for ever.
            channel.close(promise: nil)
        }
        try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(url.path)) { file in
            // Still the file that was hashed and offered, not one swapped in since.
            try await identity.check(file, name: url.lastPathComponent)
            try await start()
            var inFlight: [EventLoopFuture<Void>] = []
            var sent: UInt64 = 0
            var reported: UInt64?
            for try await chunk in file.readChunks(in: 0..<Int64(size), chunkLength: .kibibytes(256)) {
                if answered.withLockedValue({ $0 }) { throw LocalSendError.cancelled }
                try await pacing.pace(chunk.readableBytes, .sending, device: device)
                inFlight.append(channel.writeAndFlush(HTTPClientRequestPart.body(.byteBuffer(chunk))))
                sent += UInt64(chunk.readableBytes)
                if inFlight.count >= 4 {
                    try await inFlight.removeFirst().get()
                    progress(sent)
                    reported = sent
                }
            }
            for write in inFlight { try await write.get() }
            if reported != sent { progress(sent) }  // the end once, also when the last write was reported
            guard sent == size else {
                throw LocalSendError.fileChanged(url.lastPathComponent)
            }
        }
    }
}

extension LocalSendHTTPClient.Response {
    fileprivate func with(_ fingerprint: String?) -> Self {
        var copy = self
        copy.presentedFingerprint = fingerprint
        return copy
    }
}

/// Checks the peer's certificate against the fingerprint expected, and remembers what it saw.
final class FingerprintPin: Sendable {
    let expected: String?
    private let seen = NIOLockedValueBox<String?>(nil)

    init(expected: String?) { self.expected = expected }

    var presented: String? { seen.withLockedValue { $0 } }

    /// The error when the peer showed another certificate than the one expected.
    var mismatch: LocalSendError? {
        guard let expected, let presented, !LocalSendFingerprint.matches(expected, presented) else { return nil }
        return .fingerprintMismatch(expected: expected, presented: presented)
    }

    func verify(_ chain: [NIOSSLCertificate], _ promise: EventLoopPromise<NIOSSLVerificationResult>) {
        guard let leaf = chain.first, let der = try? leaf.toDERBytes() else {
            promise.succeed(.failed)
            return
        }
        let fingerprint = LocalSendFingerprint.of(certificateDER: der)
        seen.withLockedValue { $0 = fingerprint }
        if let expected, !LocalSendFingerprint.matches(expected, fingerprint) {
            promise.succeed(.failed)
        } else {
            promise.succeed(.certificateVerified)
        }
    }
}

/// Gathers one HTTP response, refusing a body beyond its limit.
///
/// `@unchecked Sendable`: its mutable state is touched only on its channel's event loop (the pipeline's callbacks,
/// and ``response(on:)``, which hops there with `flatSubmit`); the type is sent only to be added to that pipeline.
final class ResponseCollector: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart

    let limit: Int
    var status = 0
    var body: [UInt8] = []
    var promise: EventLoopPromise<LocalSendHTTPClient.Response>?
    var future: EventLoopFuture<LocalSendHTTPClient.Response>?

    init(limit: Int) { self.limit = limit }

    /// The answer, or the error that ended the connection first (a refused certificate included).
    func response(on loop: any EventLoop) -> EventLoopFuture<LocalSendHTTPClient.Response> {
        loop.flatSubmit {
            self.future ?? loop.makeFailedFuture(LocalSendError.unreachable("the connection was not set up"))
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let promise = context.eventLoop.makePromise(of: LocalSendHTTPClient.Response.self)
        self.promise = promise
        future = promise.futureResult
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
        case .body(var buffer):
            guard body.count + buffer.readableBytes <= limit else {
                promise?.fail(LocalSendError.badAnswer("an answer larger than \(limit) bytes"))
                promise = nil
                context.close(promise: nil)
                return
            }
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            promise?.succeed(.init(status: status, body: body, presentedFingerprint: nil))
            promise = nil
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise?.fail(error)
        promise = nil
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.fail(LocalSendError.unreachable("the connection closed before an answer"))
        promise = nil
        context.fireChannelInactive()
    }

    /// A connection that never came up (refused, timed out) is torn down without going inactive: the promise
    /// still ends.
    func handlerRemoved(context: ChannelHandlerContext) {
        promise?.fail(LocalSendError.unreachable("the connection was not set up"))
        promise = nil
    }
}
