import Crypto
import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import SwiftASN1
import Synchronization
import X509

/// Certificates that Huddle itself never makes: chains, other key types, for peers that misbehave.
enum TestCertificates {
    /// A certificate for `publicKey` named `subject`, signed by `issuerKey` as `issuer`, DER.
    static func make(
        subject: String,
        publicKey: Certificate.PublicKey,
        issuer: String,
        issuerKey: Certificate.PrivateKey,
        isAuthority: Bool = false
    ) throws -> [UInt8] {
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now - 86_400,
            notValidAfter: now + 86_400,
            issuer: try DistinguishedName { CommonName(issuer) },
            subject: try DistinguishedName { CommonName(subject) },
            extensions: try Certificate.Extensions {
                Critical(
                    isAuthority ? BasicConstraints.isCertificateAuthority(maxPathLength: 0) : .notCertificateAuthority
                )
                KeyUsage(digitalSignature: true, keyCertSign: isAuthority)
            },
            issuerPrivateKey: issuerKey
        )
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// A self-signed certificate for `key`, DER.
    static func selfSigned(_ key: Certificate.PrivateKey, name: String = "rogue") throws -> [UInt8] {
        try make(subject: name, publicKey: key.publicKey, issuer: name, issuerKey: key)
    }

    /// `key` for NIOSSL, through its PKCS#8 PEM.
    static func nioKey(_ key: Certificate.PrivateKey) throws -> NIOSSLPrivateKey {
        try NIOSSLPrivateKey(bytes: Array(key.serializeAsPEM().pemString.utf8), format: .pem)
    }

    /// A TLS 1.3 client configuration offering `huddle/1` that trusts anything: a peer that is not Huddle.
    static func rogueClient(chain: [[UInt8]] = [], key: NIOSSLPrivateKey? = nil) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        tls.trustRoots = .certificates([])
        tls.minimumTLSVersion = .tlsv13
        tls.applicationProtocols = [PeerTLS.applicationProtocol]
        tls.certificateChain = try chain.map { .certificate(try NIOSSLCertificate(bytes: $0, format: .der)) }
        tls.privateKey = key.map { .privateKey($0) }
        return tls
    }
}

/// What a raw TLS client saw.
enum RawTLSEvent: Sendable, Equatable {
    case handshakeCompleted(negotiatedProtocol: String?)
    /// Application bytes written right after the handshake completed.
    case sent(Int)
    case data(Int)
    case error(String)
    case inactive
}

/// Records what happens on a channel that is not a Huddle connection.
final class RawTLSLog: Sendable {
    private let events = Mutex<[RawTLSEvent]>([])

    func append(_ event: RawTLSEvent) { events.withLock { $0.append(event) } }

    var all: [RawTLSEvent] { events.withLock { $0 } }

    var completedHandshake: Bool {
        all.contains { if case .handshakeCompleted = $0 { true } else { false } }
    }

    var bytesRead: Int {
        all.reduce(0) { total, event in if case .data(let count) = event { total + count } else { total } }
    }

    var errors: [String] {
        all.compactMap { if case .error(let text) = $0 { text } else { nil } }
    }
}

/// Forwards what it sees into a `RawTLSLog`.
final class RawTLSRecorder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    let log: RawTLSLog
    let sendAfterHandshake: ByteBuffer?

    init(log: RawTLSLog, sendAfterHandshake: ByteBuffer? = nil) {
        self.log = log
        self.sendAfterHandshake = sendAfterHandshake
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        log.append(.data(unwrapInboundIn(data).readableBytes))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted(let negotiated) = event {
            log.append(.handshakeCompleted(negotiatedProtocol: negotiated))
            if let bytes = sendAfterHandshake {
                log.append(.sent(bytes.readableBytes))
                context.writeAndFlush(NIOAny(bytes), promise: nil)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        log.append(.error("\(error)"))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        log.append(.inactive)
        context.fireChannelInactive()
    }
}

@available(*, unavailable)
extension RawTLSRecorder: Sendable {}

enum RawConnections {
    /// Connects to `address` with a TLS client of our own making (or none: plaintext).
    static func connect(
        to address: SocketAddress,
        tls: TLSConfiguration?,
        sendAfterHandshake: ByteBuffer? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> (channel: any Channel, log: RawTLSLog) {
        let log = RawTLSLog()
        let context = try tls.map { try NIOSSLContext(configuration: $0) }
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: context, serverHostname: nil)
                        )
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        RawTLSRecorder(log: log, sendAfterHandshake: sendAfterHandshake)
                    )
                }
            }
            .connect(to: address)
            .get()
        return (channel, log)
    }

    /// Waits until `channel` closes; after `limit` it closes the channel itself and returns `false`.
    static func waitForClose(_ channel: any Channel, within limit: TimeAmount = .seconds(30)) async -> Bool {
        let timedOut = Atomic<Bool>(false)
        let guardTask = channel.eventLoop.scheduleTask(in: limit) {
            timedOut.store(true, ordering: .sequentiallyConsistent)
            channel.close(promise: nil)
        }
        try? await channel.closeFuture.get()
        guardTask.cancel()
        return !timedOut.load(ordering: .sequentiallyConsistent)
    }
}

/// A `PeerChannels.listen` listener for `responder` that gives every accepted connection its own log, in order.
final class LoggedListener: Sendable {
    struct Accepted: Sendable {
        var log: EventLog
        var verifier: PeerVerifier
        var channel: any Channel
    }

    let channel: any Channel
    /// The accepted connections, in the order the listener took them.
    private let accepted: EventRecorder<Accepted>

    private init(channel: any Channel, accepted: EventRecorder<Accepted>) {
        self.channel = channel
        self.accepted = accepted
    }

    /// Listens on 127.0.0.1, port 0.
    static func start(
        _ responder: TransportPeer,
        configuration: PeerConnectionConfiguration = .init(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> LoggedListener {
        let accepted = EventRecorder<Accepted>()
        let channel = try await PeerChannels.listen(host: "127.0.0.1", port: 0, group: group, tls: responder.tls) {
            child in
            let log = EventLog()
            let verifier = responder.verifier()
            accepted.record(Accepted(log: log, verifier: verifier, channel: child))
            return (responder.setup(.responder, configuration: configuration), verifier, log.sink)
        }
        return LoggedListener(channel: channel, accepted: accepted)
    }

    var address: SocketAddress { channel.localAddress! }

    /// The log of the `index`th accepted connection (from 0), waiting for the listener to accept it.
    func log(_ index: Int) async -> EventLog? {
        var seen = 0
        return await accepted.first { accepted -> EventLog? in
            defer { seen += 1 }
            return seen == index ? accepted.log : nil
        }
    }

    func verifier(_ index: Int) -> PeerVerifier? { connection(index)?.verifier }

    /// The `index`th accepted connection.
    func child(_ index: Int) -> (any Channel)? { connection(index)?.channel }

    private func connection(_ index: Int) -> Accepted? {
        let all = accepted.events
        return index < all.count ? all[index] : nil
    }

    func close() async {
        try? await channel.close()
    }
}

/// Every event of a Huddle connection not yet taken from `log`, until it closes, so a test can check what never
/// happened.
func eventsUntilClosed(_ log: EventLog, within seconds: Double = 30) async -> [PeerConnectionEvent] {
    await log.untilClosed(within: seconds)
}

extension PeerConnectionEvent {
    /// The close reason when this is `.closed`.
    var closeReason: PeerConnectionError?? {
        if case .closed(let error) = self { return .some(error) }
        return nil
    }

    var isAuthenticated: Bool {
        if case .authenticated = self { return true }
        return false
    }
}
