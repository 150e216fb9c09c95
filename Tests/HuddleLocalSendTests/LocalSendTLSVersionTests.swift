import HuddleTestSupport
import HuddleTransport
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Testing

@testable import HuddleLocalSend

/// The LocalSend server and client speak TLS 1.2 or newer (NIOSSL's default minimum is 1.0): a peer that offers
/// only 1.0 or 1.1 gets no handshake.
@Suite struct LocalSendTLSVersionTests {
    @Test func theServerAndTheClientRequireTLS12() throws {
        let identity = try DeviceIdentity.ephemeral()
        let credentials = LocalSendCredentials(certificateDER: identity.certificateDER, privateKey: identity.privateKey)
        #expect(try credentials.serverTLSConfiguration().minimumTLSVersion == .tlsv12)
        #expect(try credentials.clientTLS().minimumTLSVersion == .tlsv12)
    }

    /// Reports how the TLS handshake ended: the version agreed, or the error.
    final class HandshakeOutcome: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let promise: EventLoopPromise<TLSVersion?>

        init(_ promise: EventLoopPromise<TLSVersion?>) { self.promise = promise }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case TLSUserEvent.handshakeCompleted = event {
                let version = try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self).tlsVersion
                promise.succeed(version ?? nil)
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.fail(error)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(ChannelError.eof)
            context.fireChannelInactive()
        }
    }

    /// A real TLS handshake with the service (in `memory`) by a client that offers `minimum`...`maximum` only.
    static func handshake(
        port: Int,
        in memory: MemoryStreams,
        minimum: TLSVersion,
        maximum: TLSVersion
    ) async throws -> TLSVersion? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        configuration.minimumTLSVersion = minimum
        configuration.maximumTLSVersion = maximum
        let context = try NIOSSLContext(configuration: configuration)
        let group = MultiThreadedEventLoopGroup.singleton
        let promise = group.next().makePromise(of: TLSVersion?.self)
        let channel = try await memory.connect(host: "127.0.0.1", port: port, group: group, timeout: .seconds(5)) {
            channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(
                    try NIOSSLClientHandler(context: context, serverHostname: nil)
                )
                try channel.pipeline.syncOperations.addHandler(HandshakeOutcome(promise))
                return channel
            }
        }
        defer { channel.close(promise: nil) }
        return try await promise.futureResult.get()
    }

    /// In memory (``MemoryStreams``): the service's server as on a socket, real NIOSSL on both ends.
    @Test func aClientLimitedToTLS11GetsNoHandshakeAndOneOfferingTLS12Does() async throws {
        let memory = MemoryStreams()
        let running = try await LocalSendTestDevice.start(LocalSendTestDevice.configuration("Ada", memory: memory))
        do {
            await #expect(throws: NIOSSLError.self) {
                try await Self.handshake(port: running.port, in: memory, minimum: .tlsv1, maximum: .tlsv11)
            }
            let agreed = try await Self.handshake(port: running.port, in: memory, minimum: .tlsv12, maximum: .tlsv12)
            #expect(agreed == .tlsv12)
        } catch {
            await running.stop()
            throw error
        }
        await running.stop()
    }
}
