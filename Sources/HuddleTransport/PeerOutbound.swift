public import HuddleWire
public import NIOCore

/// What the owner writes into a connection.
public enum PeerOutbound: Sendable {
    /// A reliable message; the write completes when it has been handed to the socket.
    case message(ByteBuffer)
    /// A message of the resource stream; completes like `message`.
    case resource(ByteBuffer)
    /// Before any message once connected: number the reliable messages from `from` on, and send `redeliver` (the
    /// messages a lost connection left unacknowledged) first.
    case resume(from: UInt64, redeliver: [ByteBuffer])
    /// The answer to a `prompt`.
    case decision(accept: Bool)
    /// Say goodbye (or why not) and close.
    case close(PeerCloseReason)
}
