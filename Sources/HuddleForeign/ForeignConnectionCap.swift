public import HuddleTransport
import NIOConcurrencyHelpers
public import NIOCore

/// Bounds the connections a foreign listener holds open at once, in all and per address, for as long as each is
/// open (docs/threat-model.md, "Foreign peers"): a connection beyond either is closed as soon as it is accepted, so
/// a host that opens connections and sends nothing holds its own share and no more, and the process keeps its
/// descriptors for everyone else. Put it first in an accepted channel's pipeline.
public final class ForeignConnectionCap: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    public typealias InboundIn = Any

    let admission: PeerAdmission
    private let ticket = NIOLockedValueBox<PeerAdmission.Ticket?>(nil)

    /// - Parameter admission: shared by every connection of one listener (or of several, to bound them together).
    public init(_ admission: PeerAdmission) {
        self.admission = admission
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context: context) }
    }

    public func channelActive(context: ChannelHandlerContext) {
        guard ticket.withLockedValue({ $0 == nil }) else {
            context.fireChannelActive()
            return
        }
        if admit(context: context) { context.fireChannelActive() }
    }

    /// Takes a place for the connection, or closes it; returns whether it has one.
    @discardableResult
    func admit(context: ChannelHandlerContext) -> Bool {
        guard let place = admission.admit(context.channel.remoteAddress) else {
            context.close(promise: nil)
            return false
        }
        ticket.withLockedValue { $0 = place }
        return true
    }

    public func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        release()
    }

    func release() {
        ticket.withLockedValue { ticket in
            ticket?.release()
            ticket = nil
        }
    }
}
