public import NIOCore

/// Decides when a connection stops reading because its messages are not being consumed.
public protocol PeerReceiveGate: Sendable {
    /// A whole message of `count` bytes arrived on `channel` (called on its event loop). Return true to stop
    /// reading from it; whoever paused it sets `autoRead` back on.
    func received(_ count: Int, on channel: any Channel) -> Bool

    /// The same for a whole message of the resource stream (transfer data), which may have a budget of its own.
    func receivedResource(_ count: Int, on channel: any Channel) -> Bool
}

extension PeerReceiveGate {
    /// Counts resource messages with the others.
    public func receivedResource(_ count: Int, on channel: any Channel) -> Bool { received(count, on: channel) }
}
