import HuddleWire
import NIOCore

/// Hands received datagrams addressed to a known link to the session's inbox; drops the rest on the event loop
/// (``DatagramFilter``). Opening and replay checks are the session's.
final class DatagramInboxHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let inbox: AsyncStream<PeerSession.Inbox>.Continuation
    let filter: DatagramFilter

    init(inbox: AsyncStream<PeerSession.Inbox>.Continuation, filter: DatagramFilter) {
        self.inbox = inbox
        self.filter = filter
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard filter.admits(envelope.data, from: envelope.remoteAddress) else { return }
        inbox.yield(.datagram(Array(envelope.data.readableBytesView), envelope.remoteAddress))
    }
}
