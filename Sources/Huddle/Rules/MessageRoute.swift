import HuddleWire
import NIOConcurrencyHelpers
import NIOCore

/// How one connection's messages reach the events: through the session's inbox until the session has tied the
/// connection to its peer, then straight from the event loop — but only once every message already in the inbox
/// has been handed on, so the order never changes. It also numbers the messages (from the peer's RESUME on), and
/// once tied to the peer drops those the peer's ``DeliveryCounter`` says were handed on already.
final class MessageRoute: Sendable {
    private struct State {
        var peer: PeerID?
        var delivery: DeliveryCounter?
        var inInbox = 0
        var next: UInt64 = 0
        var version: UInt8 = 2
    }

    enum Arrival {
        /// Hand it to the events now.
        case direct(PeerID)
        /// The peer sent it again after a lost connection and it was handed on then: drop it.
        case duplicate
        /// Send it through the inbox with its sequence number.
        case inbox(UInt64)
    }

    private let state = NIOLockedValueBox(State())

    /// The peer's next message has sequence number `sequence`.
    func resume(at sequence: UInt64) { state.withLockedValue { $0.next = sequence } }

    /// A whole message arrived (called in order, on the event loop).
    func arrived() -> Arrival {
        state.withLockedValue { state in
            let sequence = state.next
            state.next &+= 1
            if let peer = state.peer, let delivery = state.delivery, state.inInbox == 0 {
                return delivery.admit(sequence) ? .direct(peer) : .duplicate
            }
            state.inInbox += 1
            return .inbox(sequence)
        }
    }

    /// The handshake agreed on protocol `version` (before any message arrives).
    func speaks(_ version: UInt8) { state.withLockedValue { $0.version = version } }

    /// What a message is and how it came, read off its front from version 3 on (``ReliableMessageHeader``); nil
    /// when its header is malformed. Every message of version 2 is channel 0's, ordered.
    func header(reading buffer: inout ByteBuffer) -> ReliableMessageHeader? {
        guard state.withLockedValue({ $0.version }) >= 3 else { return ReliableMessageHeader(.ordered, channel: 0) }
        return ReliableMessageHeader(readingFrom: &buffer)
    }

    /// A message that went through the inbox was handed on.
    func leftInbox() { state.withLockedValue { $0.inInbox -= 1 } }

    /// From now on messages may go directly to `peer`.
    func open(to peer: PeerID, delivery: DeliveryCounter) {
        state.withLockedValue { state in
            state.peer = peer
            state.delivery = delivery
        }
    }
}
