import HuddleWire
import NIOCore

extension PeerConnectionHandler {
    /// The connection's time: its event loop's clock, as a `ContinuousClock` instant for the handshake machine.
    ///
    /// Every timer runs on the event loop, so the times they compare must come from it too. On a real event loop
    /// this is the monotonic clock; on an `EmbeddedEventLoop` it is the loop's virtual time, which tests move
    /// with `advanceTime(by:)` together with the timers.
    func now(_ context: ChannelHandlerContext) -> ContinuousClock.Instant {
        let elapsed = context.eventLoop.now - clockOrigin.loop
        return clockOrigin.instant + .nanoseconds(elapsed.nanoseconds)
    }

    /// Runs `body` on the event loop after `delay`, replacing any timer set before.
    func schedule(
        after delay: Duration,
        context: ChannelHandlerContext,
        _ body: @escaping (PeerConnectionHandler, ChannelHandlerContext) -> Void
    ) {
        timer?.cancel()
        let bound = NIOLoopBound((self, context, body), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: TimeAmount(max(.zero, delay))) {
            let (handler, context, body) = bound.value
            body(handler, context)
        }
    }

    /// Wakes at the handshake's current deadline; the machine decides whether it really passed.
    func scheduleHandshakeDeadline(context: ChannelHandlerContext) {
        guard let machine, !machine.isConnected, !machine.isClosed else { return }
        let delay = now(context).duration(to: machine.deadline)
        schedule(after: max(.zero, delay), context: context) { handler, context in
            guard var machine = handler.machine else { return }
            let actions = machine.deadlinePassed(now: handler.now(context))
            handler.machine = machine
            handler.perform(actions, context: context)
            handler.scheduleHandshakeDeadline(context: context)
        }
    }

    /// Once a second while connected: a PING after `pingAfter` of silence, disconnected after
    /// `disconnectTimeout` (`docs/security.md` §4.9: heartbeat).
    func scheduleHeartbeat(context: ChannelHandlerContext) {
        schedule(after: phase.heartbeatInterval, context: context) { handler, context in
            switch handler.phase.heartbeat(now: handler.now(context)) {
            case .closeUnresponsive:
                handler.sendControl(.close(.unresponsive), context: context)
                context.flush()
                handler.abort(.unresponsive, context: context)
                return
            case .sendPing(let value):
                handler.sendControl(.ping(value), context: context)
                context.flush()
            case .wait:
                break
            }
            handler.scheduleHeartbeat(context: context)
        }
    }
}
