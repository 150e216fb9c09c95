import NIOConcurrencyHelpers

/// The sequence number after the last of a peer's reliable messages handed on: everything below it arrived, so a
/// message sent again after a lost connection is dropped (shared by the peer's connections, one after another).
final class DeliveryCounter: Sendable {
    private let next = NIOLockedValueBox<UInt64>(0)

    /// Whether the message numbered `sequence` is new; if so it counts as handed on.
    func admit(_ sequence: UInt64) -> Bool {
        next.withLockedValue { next in
            guard sequence >= next else { return false }
            next = sequence &+ 1
            return true
        }
    }
}
