public import HuddleTransport
public import HuddleWire

/// A connection waiting for this side's decision.
public struct PeerConnectionRequest: Hashable, Sendable, Identifiable {
    public struct ID: Hashable, Sendable, CustomStringConvertible {
        let rawValue: Int
        public var description: String { "#\(rawValue)" }
    }

    /// Which side asked.
    public enum Direction: Hashable, Sendable {
        /// The peer asked us.
        case incoming
        /// We asked; first contact still needs our confirmation of the code.
        case outgoing
    }

    public let id: ID
    public let peer: PeerID
    /// The peer's name, cleaned for display.
    public let displayName: String
    /// The peer's device, proved by TLS.
    public let deviceID: DeviceID
    /// The six-digit code to compare at first contact (shown as "123 456"), `nil` for a pinned peer.
    public let code: PairingCode?
    /// The requester's context payload (at most 1 KiB, untrusted).
    public let context: [UInt8]
    public let direction: Direction
    /// How the peer is trusted now, `nil` at first contact.
    public let trust: TrustLevel?
    /// At first contact, the paired devices whose names look like this peer's (``DisplayText/lookalikeKey(_:)``):
    /// the peer is *not* any of them, whatever it calls itself. Not empty means the name could be borrowed to pass
    /// for a known device (`docs/security.md` §5 J3): such a request is never accepted by
    /// ``PeerSessionConfiguration/trustsOnFirstUse`` and should be shown with a warning.
    public let namesakes: [DeviceID]

    /// The context as text, cleaned for display.
    public var contextText: String { DisplayText.sanitized(bytes: context) }
}
