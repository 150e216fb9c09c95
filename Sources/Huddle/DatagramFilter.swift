import HuddleWire
import NIOConcurrencyHelpers
import NIOCore

/// The connection IDs the session's datagram links answer to, checked on the event loop before a packet is copied
/// or handed to the session (`docs/security.md` §3.7 receive order step 2, §5 C7). A packet too short to carry an
/// ID, or naming one no link has, is counted and dropped there, without an allocation: a flood of garbage costs
/// a lock and a set lookup per packet, not a copy and a trip through the session.
final class DatagramFilter: Sendable {
    private struct State {
        var known: Set<DatagramConnectionID> = []
        var dropped: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Packets addressed to `id` are let through from now on.
    func allow(_ id: DatagramConnectionID) { state.withLockedValue { _ = $0.known.insert(id) } }

    /// Packets addressed to `id` are dropped from now on.
    func forget(_ id: DatagramConnectionID) { state.withLockedValue { _ = $0.known.remove(id) } }

    /// Whether `packet` names a known link; counts it as dropped if not.
    func admits(_ packet: ByteBuffer) -> Bool {
        let id = DatagramConnectionID(destinationOf: packet)
        return state.withLockedValue { state in
            if let id, state.known.contains(id) { return true }
            state.dropped &+= 1
            return false
        }
    }

    /// How many packets were dropped for want of a known connection ID.
    var dropped: UInt64 { state.withLockedValue { $0.dropped } }
}
