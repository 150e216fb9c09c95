public import Foundation
import HuddleBase
public import HuddleForeign
import HuddleKDEConnectWire
import NIOConcurrencyHelpers
import NIOCore
import NIOFileSystem
import NIOPosix
import NIOSSL
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Sending files (docs/kdeconnect.md, "Sharing"): for each file this side listens on a payload port named in the
/// share packet, as TLS server, and writes the file to the first connection that finishes TLS with the paired
/// certificate. Connections that show another certificate, or none within the handshake deadline, are closed;
/// nothing is written before TLS is done.
extension KDEConnectService {
    typealias PayloadListener = NIOAsyncChannel<(PayloadChannel, EventLoopFuture<Void>), Never>
    static let writeDeadline = "payload-write-deadline"

    /// Sends each file to a paired device (pairing first if needed), one payload connection each.
    ///
    /// Which file each path names is taken now, links followed (a link the user gave is the file it points to
    /// then); each file is opened once, before it is offered, and served from that descriptor. Whoever can write a
    /// file's directory may replace it meanwhile, with a link to the sender's private key say: a file replaced
    /// before it is opened is not sent, and one replaced after is sent as it was (docs/threat-model.md, "Foreign
    /// peers").
    public func send(files: [URL], to peer: ForeignPeer, pin: String?) async throws {
        let chosen = try files.map { url in
            guard let identity = FileIdentity(statOf: url.path) else {
                throw KDEConnectError.payload("cannot read \(url.lastPathComponent)")
            }
            return (url, identity)
        }
        let paired = try await ensurePaired(peer)
        for (url, identity) in chosen { try await send(url, identity: identity, to: peer, certificate: paired) }
    }

    /// Sends one file to the certificate the send began with: before each file the device must still be paired
    /// with it, so a link that took the device's ID since gets nothing. The file must still be `identity`.
    func send(
        _ url: URL,
        identity: FileIdentity,
        to peer: ForeignPeer,
        certificate paired: KDEConnectCertificate
    ) async throws {
        guard try pairedCertificate(of: peer) == paired else {
            throw KDEConnectError.notPaired(
                peer.name,
                reason: "it is no longer linked with the certificate it paired with"
            )
        }
        let name = url.lastPathComponent
        try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(url.path)) { handle in
            let info = try await handle.info()
            let opened = try await handle.withUnsafeDescriptor { FileIdentity(regularFileAt: $0.rawValue) }
            guard opened == identity else {
                throw KDEConnectError.payload("\(name) was replaced by another file since the send began; not sent")
            }
            try await offer(handle, name: name, size: UInt64(max(0, info.size)), to: peer, certificate: paired)
        }
    }

    /// Offers the open file on a payload port and writes it to the first connection that shows `paired`.
    func offer(
        _ handle: ReadFileHandle,
        name: String,
        size: UInt64,
        to peer: ForeignPeer,
        certificate paired: KDEConnectCertificate
    ) async throws {
        let verifier = PresentedCertificate(expected: paired.der)
        let context = try credentials.context(server: true)
        let (server, port) = try await listenForPayload(
            on: payloadAddress(for: peer),
            context: context,
            verifier: verifier
        )
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
            to: peer.id.value,
            certificate: paired
        )
        // The device has a minute to come for it.
        let timer = Task {
            try await Task.sleep(for: .seconds(60))
            try? await server.channel.close()
        }
        defer { timer.cancel() }
        var done = false
        try await server.executeThenClose { inbound in
            for await child in verifiedConnections(inbound) {
                timer.cancel()
                try await serve(handle, name: name, size: size, to: peer.fingerprint, on: child.channel)
                done = true
                break
            }
        }
        guard done else {
            throw KDEConnectError.payload("\(peer.name) did not come for \(name) within a minute (declined?)")
        }
    }

    /// The accepted connections, each once it has finished TLS with the expected certificate: those that fail,
    /// close or keep silent past the deadline are closed and never yielded, and one does not hold up another.
    ///
    /// Every connection the listener accepted is taken from it until it closes, and each one not served is closed
    /// as it is dropped (``AcceptedPayload``): an open `NIOAsyncChannel` dropped unserved traps the process, so a
    /// second connection arriving while the first is served must not be left in a buffer.
    func verifiedConnections(
        _ inbound: NIOAsyncChannelInboundStream<(PayloadChannel, EventLoopFuture<Void>)>
    ) -> AsyncStream<AcceptedPayload> {
        let (verified, continuation) = AsyncStream.makeStream(of: AcceptedPayload.self)
        // Not cancelled when the reader stops: it ends when the listener closes, having taken every connection.
        Task {
            do {
                for try await (child, handshake) in inbound {
                    let accepted = AcceptedPayload(child)
                    handshake.whenComplete { result in
                        guard case .success = result else { return }
                        _ = continuation.yield(accepted)
                    }
                }
            } catch {}
            continuation.finish()
        }
        return verified
    }

    /// Writes the open file, then half-closes and waits for the receiver to close.
    func serve(
        _ handle: ReadFileHandle,
        name: String,
        size: UInt64,
        to device: String?,
        on child: PayloadChannel
    ) async throws {
        let emit = broadcast
        let offerID = Self.token()
        try await child.executeThenClose { inbound, outbound in
            var sent: UInt64 = 0
            for try await chunk in handle.readChunks(in: 0..<Int64(size), chunkLength: .kibibytes(256)) {
                try await configuration.pacing.pace(chunk.readableBytes, .sending, device: device)
                try await outbound.write(chunk)
                sent += UInt64(chunk.readableBytes)
                emit.yield(
                    .progress(.init(offerID: offerID, fileName: name, completed: sent, total: size, isOutgoing: true))
                )
            }
            // Every byte is written: what follows is the receiver's close, with a minute of its own.
            try? await child.channel.pipeline.removeHandler(name: Self.writeDeadline)
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
    }

    /// Where a file for `peer` is offered: the one listen address, or (with several) the address its link came
    /// to, where the device knows this one.
    func payloadAddress(for peer: ForeignPeer) -> String {
        let addresses = configuration.listenAddresses
        guard addresses.count > 1 else { return addresses.first ?? "0.0.0.0" }
        let local = state.withLockedValue { $0.devices.devices[peer.id.value]?.link?.localAddress?.ipAddress }
        return local.flatMap { addresses.contains($0) ? $0 : nil } ?? addresses[0]
    }

    /// A listener on `address`, at the first free payload port. Each connection gets the handshake deadline, and
    /// a write deadline: a receiver that stops reading for the idle time ends the send.
    func listenForPayload(
        on address: String,
        context: NIOSSLContext,
        verifier: PresentedCertificate
    ) async throws -> (PayloadListener, Int) {
        let handshake = TimeAmount(configuration.limits.handshakeTimeout)
        let idle = configuration.limits.payloadIdleTimeout
        for port in configuration.payloadPorts {
            do {
                let server = try await configuration.streams.listen(host: address, port: port, group: group) {
                    channel in
                    channel.eventLoop.makeCompletedFuture {
                        let verified = channel.eventLoop.makePromise(of: Void.self)
                        let tls = NIOSSLServerHandler(context: context, customVerificationCallback: verifier.verify)
                        let sync = channel.pipeline.syncOperations
                        try sync.addHandlers(tls, PayloadHandshakeGate(verified: verified, deadline: handshake))
                        try sync.addHandler(
                            IdleStateHandler(writeTimeout: TimeAmount(idle)),
                            name: Self.writeDeadline
                        )
                        try sync.addHandler(
                            PayloadIdleHandler(reason: "the receiver took nothing for \(idle.components.seconds) s")
                        )
                        // Finishing the writer half-closes: close_notify and FIN, reading on.
                        let payload = try PayloadChannel(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true)
                        )
                        return (payload, verified.futureResult)
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

/// A payload connection the listener accepted, closed when dropped unserved. NIO traps when an open
/// `NIOAsyncChannel` is released without `executeThenClose` ("Deinited NIOAsyncWriter without calling finish()",
/// apple/swift-nio#3481); this one is kept alive until its close is done. Closing one already served does nothing.
final class AcceptedPayload: Sendable {
    let channel: KDEConnectService.PayloadChannel

    init(_ channel: KDEConnectService.PayloadChannel) { self.channel = channel }

    deinit {
        let held = channel
        held.channel.close().whenComplete { _ in withExtendedLifetime(held) {} }
    }
}
