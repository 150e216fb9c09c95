import HuddleWire
import NIOCore

extension PeerConnectionHandler {
    /// Runs `body` on the event loop after `delay`, replacing any timer set before.
    func schedule(
        after delay: Duration,
        context: ChannelHandlerContext,
        _ body: @escaping (PeerConnectionHandler, ChannelHandlerContext) -> Void
    ) {
        timer?.cancel()
        let bound = NIOLoopBound((self, context, body), eventLoop: context.eventLoop)
        let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
        timer = context.eventLoop.scheduleTask(in: .nanoseconds(max(0, nanoseconds))) {
            let (handler, context, body) = bound.value
            body(handler, context)
        }
    }

    /// Wakes at the handshake's current deadline; the machine decides whether it really passed.
    func scheduleHandshakeDeadline(context: ChannelHandlerContext) {
        guard let machine, !machine.isConnected, !machine.isClosed else { return }
        let delay = ContinuousClock.now.duration(to: machine.deadline)
        schedule(after: max(.zero, delay), context: context) { handler, context in
            guard var machine = handler.machine else { return }
            let actions = machine.deadlinePassed(now: .now)
            handler.machine = machine
            handler.perform(actions, context: context)
            handler.scheduleHandshakeDeadline(context: context)
        }
    }

    /// Once a second while connected: a PING after `pingAfter` of silence, disconnected after
    /// `disconnectTimeout` (`docs/security.md` §4.9: heartbeat).
    func scheduleHeartbeat(context: ChannelHandlerContext) {
        let configuration = setup.configuration
        let tick = min(.seconds(1), configuration.pingAfter)
        schedule(after: tick, context: context) { handler, context in
            let silence = handler.lastHeard.duration(to: .now)
            if silence >= configuration.disconnectTimeout {
                handler.sendControl(.close(.unresponsive), context: context)
                context.flush()
                handler.abort(.unresponsive, context: context)
                return
            }
            if silence >= configuration.pingAfter && !handler.pingOutstanding {
                handler.pingOutstanding = true
                handler.pingsSent += 1
                handler.sendControl(.ping(handler.pingsSent), context: context)
                context.flush()
            }
            handler.scheduleHeartbeat(context: context)
        }
    }
}
