import NIOCore

/// Hands received datagrams addressed to a known link to `deliver`; drops the rest on the event loop
/// (``DatagramFilter``). Opening and replay checks are the session's.
final class DatagramInboxHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let filter: DatagramFilter
    let deliver: @Sendable ([UInt8], SocketAddress) -> Void

    init(filter: DatagramFilter, deliver: @escaping @Sendable ([UInt8], SocketAddress) -> Void) {
        self.filter = filter
        self.deliver = deliver
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard filter.admits(envelope.data, from: envelope.remoteAddress) else { return }
        deliver(Array(envelope.data.readableBytesView), envelope.remoteAddress)
    }
}
