import HuddleTransport
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore

/// PINGs over the TLS stream: reliable messages of kind PING, answered by the session with a PONG of the same
/// bytes, neither handed to the application (``ReliableMessageHeader``, `docs/wire-protocol.md` §6.2). They time
/// the round trip a reliable message takes, queueing behind what was sent before it included
/// (`docs/realtime.md`, "huddle ping").
///
/// A PING's bytes start with its number (u64, big-endian), then filler up to its size. Safe from any thread: PINGs
/// are answered on the event loop, straight from the connection's events, or by the session for a message that
/// went through its inbox.
final class ReliablePings: Sendable {
    private struct State {
        var next: UInt64 = 1
        var waiting: [UInt64: (sent: ContinuousClock.Instant, reply: CheckedContinuation<Duration?, Never>)] = [:]
    }

    static let numberSize = 8
    private let state = NIOLockedValueBox(State())
    let clock: any SessionClock
    let sender: MessageSender

    init(clock: any SessionClock, sender: MessageSender) {
        (self.clock, self.sender) = (clock, sender)
    }

    /// Sends a PING of `size` bytes (at least its 8-byte number) to `peer` and waits for the PONG: the round trip,
    /// or nil when none came within `timeout` or the connection refused the write.
    /// - Throws: ``PeerSessionError/notConnected(_:)``, ``PeerSessionError/needsNewerPeer(_:version:)``.
    func ping(_ peer: PeerID, size: Int, timeout: Duration) async throws -> Duration? {
        guard let (channel, version) = sender.flow.link(to: peer) else { throw PeerSessionError.notConnected(peer) }
        guard version >= 3 else { throw PeerSessionError.needsNewerPeer(peer, version: version) }
        let number = state.withLockedValue { state in
            defer { state.next &+= 1 }
            return state.next
        }
        var buffer = ByteBuffer(bytes: ReliableMessageHeader(.ping, channel: 0).encoded)
        buffer.writeInteger(number)
        buffer.writeRepeatingByte(0, count: max(size - Self.numberSize, 0))
        let clock = self.clock
        let timer = Task { [weak self] in
            guard (try? await clock.sleep(until: clock.now + timeout)) != nil else { return }
            self?.finish(number, with: nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { reply in
            state.withLockedValue { $0.waiting[number] = (clock.now, reply) }
            sender.write(buffer, to: peer, on: channel).whenFailure { [weak self] _ in self?.finish(number, with: nil) }
        }
    }

    /// A message of the stream with `header` from `peer`, its header read off `buffer`: a PING is answered and a
    /// PONG ends its wait (nil: nothing to hand on); anything else is the application's, delivered as returned —
    /// an unreliable message that came on the stream as unreliable (in order, as the stream keeps it).
    func take(_ header: ReliableMessageHeader, _ buffer: ByteBuffer, from peer: PeerID) -> PeerDelivery? {
        switch header.kind {
        case .ordered: return PeerDelivery(.reliableOrdered, channel: header.channel)
        case .unordered: return PeerDelivery(.reliableUnordered, channel: header.channel)
        case .unreliable: return PeerDelivery(.unreliable, channel: header.channel)
        case .unreliableSequenced: return PeerDelivery(.unreliableSequenced, channel: header.channel)
        case .ping:
            guard let (channel, version) = sender.flow.link(to: peer), version >= 3 else { return nil }
            var pong = ByteBuffer(bytes: ReliableMessageHeader(.pong, channel: header.channel).encoded)
            pong.writeImmutableBuffer(buffer)
            _ = sender.write(pong, to: peer, on: channel)
        case .pong:
            guard let number = buffer.getInteger(at: buffer.readerIndex, as: UInt64.self) else { return nil }
            let sent = state.withLockedValue { $0.waiting[number]?.sent }
            if let sent { finish(number, with: clock.now - sent) }
        }
        return nil
    }

    private func finish(_ number: UInt64, with roundTrip: Duration?) {
        state.withLockedValue { $0.waiting.removeValue(forKey: number) }?.reply.resume(returning: roundTrip)
    }
}
