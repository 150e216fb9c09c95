public import Foundation
import Huddle
public import HuddleForeign
import HuddleKDEConnectWire
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import NIOPosix
import NIOSSL
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#endif

/// Files go on connections of their own (docs/kdeconnect.md, "Sharing"): the sender listens on a port it names in
/// the share packet, TLS server there; the receiver dials it, TLS client. Both show the link's certificates, and a
/// payload connection with any other certificate is refused before a byte of the file moves.
extension KDEConnectService {
    typealias PayloadChannel = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    /// Takes an accepted file: into a hidden partial file, never more than announced, then its name (nothing
    /// overwritten).
    func download(_ offered: Offered, into directory: URL) async throws {
        guard let device = state.withLockedValue({ $0.devices[offered.deviceId] }),
            let expected = device.certificate?.der, let file = offered.offer.files.first
        else { throw KDEConnectError.notLinked(offered.offer.from.name) }
        let writer = try ReceivedFileWriter(name: file.name, in: directory, expectedSize: file.size)
        let verifier = PresentedCertificate(expected: expected)
        let context = try credentials.context(server: false)
        let idleSeconds = configuration.limits.payloadIdleSeconds
        do {
            let channel = try await ClientBootstrap(group: group)
                .connectTimeout(.seconds(10))
                .connect(host: device.host, port: offered.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let tls = try NIOSSLClientHandler(
                            context: context,
                            serverHostname: nil,
                            customVerificationCallback: verifier.verify
                        )
                        try channel.pipeline.syncOperations.addHandlers(
                            tls,
                            IdleStateHandler(readTimeout: .milliseconds(Int64(idleSeconds * 1000))),
                            PayloadIdleHandler(
                                reason: "\(offered.offer.from.name) sent nothing for \(Int(idleSeconds)) s"
                            )
                        )
                        return try PayloadChannel(wrappingChannelSynchronously: channel)
                    }
                }
            var reported: UInt64 = 0
            try await channel.executeThenClose { inbound, _ in
                for try await chunk in inbound {
                    try writer.write(chunk.readableBytesView)
                    if writer.written - reported >= 1 << 20 || writer.written == file.size {
                        reported = writer.written
                        emit(
                            .progress(
                                .init(
                                    offerID: offered.offer.id,
                                    fileName: file.name,
                                    completed: reported,
                                    total: file.size,
                                    isOutgoing: false
                                )
                            )
                        )
                    }
                    if writer.written == file.size { break }
                }
            }
            let url = try writer.finish(expectedSHA256: nil)
            emit(.received(offerID: offered.offer.id, file: file, at: url))
        } catch {
            let written = writer.written
            writer.abandon()
            if verifier.der != nil, verifier.der != expected {
                throw KDEConnectError.payload("the payload connection showed another certificate than the link's")
            }
            if let tls = error as? NIOSSLError, case .uncleanShutdown = tls {
                throw KDEConnectError.payload(
                    "\(file.name): the connection broke off after \(written) of \(file.size) bytes; nothing kept"
                )
            }
            throw error
        }
    }

    /// Sends each file to a paired device (pairing first if needed), one payload connection each.
    public func send(files: [URL], to peer: ForeignPeer, pin: String?) async throws {
        try await ensurePaired(peer)
        for url in files { try await send(url, to: peer) }
    }

    func send(_ url: URL, to peer: ForeignPeer) async throws {
        guard let device = state.withLockedValue({ $0.devices[peer.id.value] }), let expected = device.certificate?.der
        else { throw KDEConnectError.notLinked(peer.name) }
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? UInt64 ?? 0
        let verifier = PresentedCertificate(expected: expected)
        let context = try credentials.context(server: true)
        let (server, port) = try await listenForPayload(context: context, verifier: verifier)
        let offerID = Self.token()
        let name = url.lastPathComponent
        send(
            KDEConnectPacket(
                type: "kdeconnect.share.request",
                body: [
                    "filename": .string(name), "numberOfFiles": .number(1), "totalPayloadSize": .number(Double(size)),
                    "open": .bool(false),
                ],
                payloadSize: Int64(size),
                payloadPort: port
            ),
            to: peer.id.value
        )
        // The device has a minute to come for it.
        let timer = Task {
            try await Task.sleep(for: .seconds(60))
            try? await server.channel.close()
        }
        defer { timer.cancel() }
        let emit = continuation
        var done = false
        try await server.executeThenClose { inbound in
            for try await child in inbound {
                timer.cancel()
                try await child.executeThenClose { inbound, outbound in
                    try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(url.path)) { handle in
                        var sent: UInt64 = 0
                        for try await chunk in handle.readChunks(in: 0..<Int64(size), chunkLength: .kibibytes(256)) {
                            try await outbound.write(chunk)
                            sent += UInt64(chunk.readableBytes)
                            emit.yield(
                                .progress(
                                    .init(
                                        offerID: offerID,
                                        fileName: name,
                                        completed: sent,
                                        total: size,
                                        isOutgoing: true
                                    )
                                )
                            )
                        }
                    }
                    // The end of the file is the end of what this side sends (close_notify, then FIN): KDE Connect
                    // reads until then. It closes once it has every byte, and reading on until it does means no
                    // unread byte here turns the close into a reset under bytes it has not read. It has a minute;
                    // a reset, or a close without close_notify, once every byte is out is how receivers close.
                    outbound.finish()
                    let closer = Task {
                        try await Task.sleep(for: .seconds(60))
                        child.channel.close(promise: nil)
                    }
                    defer { closer.cancel() }
                    do {
                        for try await _ in inbound {}
                    } catch let error as IOError where error.errnoCode == ECONNRESET {
                        return
                    } catch NIOSSLError.uncleanShutdown {
                        // Closed without close_notify, once it had what it wanted: how KDE Connect closes.
                        return
                    }
                }
                done = true
                break
            }
        }
        guard done else {
            throw KDEConnectError.payload("\(peer.name) did not come for \(name) within a minute (declined?)")
        }
    }

    /// A listener on the first free payload port.
    func listenForPayload(
        context: NIOSSLContext,
        verifier: PresentedCertificate
    ) async throws -> (NIOAsyncChannel<PayloadChannel, Never>, Int) {
        for port in configuration.payloadPorts {
            do {
                let server = try await ServerBootstrap(group: group)
                    .bind(host: "0.0.0.0", port: port) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            let tls = NIOSSLServerHandler(context: context, customVerificationCallback: verifier.verify)
                            try channel.pipeline.syncOperations.addHandler(tls)
                            // Finishing the writer half-closes: close_notify and FIN, reading on.
                            return try PayloadChannel(
                                wrappingChannelSynchronously: channel,
                                configuration: .init(isOutboundHalfClosureEnabled: true)
                            )
                        }
                    }
                return (server, server.channel.localAddress?.port ?? port)
            } catch {
                continue
            }
        }
        throw KDEConnectError.payload(
            "no TCP port from \(configuration.payloadPorts.lowerBound) to "
                + "\(configuration.payloadPorts.upperBound) is free for the file"
        )
    }
}
