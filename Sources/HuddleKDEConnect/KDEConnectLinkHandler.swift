import HuddleKDEConnectWire
import NIOCore
import NIOSSL
import NIOTLS

/// Sets up one KDE Connect link and then carries its packets (docs/kdeconnect.md, "Links").
///
/// The roles are the protocol's: the side that dialled (it heard the other's announcement) sends its identity in
/// the clear and then is the TLS *server*; the side that accepted reads that identity and is the TLS *client*.
/// Both show certificates. From protocol version 8 on (both sides), each then sends its identity again inside TLS,
/// and that one counts. The certificate's Common Name must be the device ID.
///
/// `@unchecked Sendable`: every mutable property is read and written only on its channel's event loop, in the
/// pipeline's callbacks and in what they schedule there; it is sent only to be added to that pipeline.
final class KDEConnectLinkHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Role {
        /// We dialled the device that announced `identity`.
        case dialled(KDEConnectIdentity)
        case accepted
    }

    enum Phase { case identity, tls, secureIdentity, linked, closed }

    /// What the link learned once it is up.
    struct Linked: Sendable {
        let identity: KDEConnectIdentity
        let certificate: KDEConnectCertificate
        let channel: any Channel
    }

    let role: Role
    let own: KDEConnectIdentity
    let credentials: KDEConnectCredentials
    let limits: KDEConnectLimits
    let presented = PresentedCertificate()
    let onLinked: @Sendable (Linked) -> Void
    let onPacket: @Sendable (KDEConnectPacket) -> Void
    let onClosed: @Sendable (String?) -> Void
    var phase = Phase.identity
    var peer: KDEConnectIdentity?
    var lines: KDEConnectLines
    var certificate: KDEConnectCertificate?

    init(
        role: Role,
        own: KDEConnectIdentity,
        credentials: KDEConnectCredentials,
        limits: KDEConnectLimits,
        onLinked: @escaping @Sendable (Linked) -> Void,
        onPacket: @escaping @Sendable (KDEConnectPacket) -> Void,
        onClosed: @escaping @Sendable (String?) -> Void
    ) {
        self.role = role
        self.own = own
        self.credentials = credentials
        self.limits = limits
        self.onLinked = onLinked
        self.onPacket = onPacket
        self.onClosed = onClosed
        lines = KDEConnectLines(limit: limits.maximumIdentityBytes)
        if case .dialled(let identity) = role { peer = identity }
    }

    func channelActive(context: ChannelHandlerContext) {
        let deadline = TimeAmount(limits.handshakeTimeout)
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let channel = context.channel
        context.eventLoop.scheduleTask(in: deadline) {
            if loopBound.value.phase != .linked { channel.close(promise: nil) }
        }
        if case .dialled = role {
            var identity = own
            identity.tcpPort = nil
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: identity.packet.line())), promise: nil)
            startTLS(context: context, server: true)
        }
        context.fireChannelActive()
    }

    func startTLS(context: ChannelHandlerContext, server: Bool) {
        phase = .tls
        do {
            let tls = try credentials.context(server: server)
            let handler: any ChannelHandler =
                server
                ? NIOSSLServerHandler(context: tls, customVerificationCallback: presented.verify)
                : try NIOSSLClientHandler(
                    context: tls,
                    serverHostname: nil,
                    customVerificationCallback: presented.verify
                )
            try context.pipeline.syncOperations.addHandler(handler, position: .first)
        } catch {
            close(context: context, "TLS could not start: \(error)")
        }
    }

    /// Line by line, so that a packet in the same read as the identity inside TLS is held to the packet limit
    /// and not lost when the link's limit changes.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        var rest = buffer.readableBytesView[...]
        while !rest.isEmpty, phase != .closed {
            let line: [UInt8]?
            do {
                let taken = try lines.firstLine(in: rest)
                rest = rest.dropFirst(taken.consumed)
                line = taken.line
            } catch {
                close(context: context, "\(error)")
                return
            }
            if let line { lineArrived(line, context: context) }
        }
    }

    func lineArrived(_ line: [UInt8], context: ChannelHandlerContext) {
        switch phase {
        case .identity:
            guard let identity = identity(from: line) else {
                close(context: context, "the first line is not an identity")
                return
            }
            peer = identity
            startTLS(context: context, server: false)
        case .secureIdentity:
            guard let identity = identity(from: line), identity.deviceId == peer?.deviceId else {
                close(context: context, "the identity inside TLS is not the one sent before it")
                return
            }
            peer = identity
            linked(context: context)
        case .linked:
            guard let packet = try? KDEConnectPacket(line: line) else { return }
            onPacket(packet)
        case .tls:
            // Nothing is sent in the clear between the identity and TLS.
            close(context: context, "unexpected bytes before TLS")
        case .closed:
            return
        }
    }

    func identity(from line: [UInt8]) -> KDEConnectIdentity? {
        guard let packet = try? KDEConnectPacket(line: line), let identity = try? KDEConnectIdentity(packet: packet),
            identity.deviceId != own.deviceId
        else { return nil }
        return identity
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event, phase == .tls, let peer {
            guard let der = presented.der, let certificate = KDEConnectCertificate(der: der) else {
                close(context: context, "no readable certificate")
                return
            }
            guard certificate.commonName == peer.deviceId else {
                close(context: context, "the certificate's name is not the device ID \(peer.deviceId)")
                return
            }
            self.certificate = certificate
            if peer.protocolVersion >= 8 && own.protocolVersion >= 8 {
                phase = .secureIdentity
                lines.limit = limits.maximumIdentityBytes
                var identity = own
                identity.tcpPort = nil
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: identity.packet.line())), promise: nil)
            } else {
                linked(context: context)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func linked(context: ChannelHandlerContext) {
        guard let peer, let certificate else { return }
        phase = .linked
        lines.limit = limits.maximumPacketBytes
        onLinked(Linked(identity: peer, certificate: certificate, channel: context.channel))
    }

    func close(context: ChannelHandlerContext, _ reason: String) {
        guard phase != .closed else { return }
        phase = .closed
        onClosed(reason)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if phase != .closed {
            phase = .closed
            onClosed(nil)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        close(context: context, "\(error)")
    }
}
