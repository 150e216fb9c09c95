/// Limits and deadlines of the handshake, with the defaults of `docs/security.md` §4.9.
public struct PeerHandshakeConfiguration: Hashable, Sendable {
    /// The protocol versions this side speaks.
    public var versions: ClosedRange<UInt8> = 2...3
    /// Time to receive the peer's HELLO and, for the responder, the CONNECT_REQUEST after it.
    public var helloTimeout: Duration = .seconds(5)
    /// Time for the users to decide a request from a pinned peer.
    public var decisionTimeout: Duration = .seconds(30)
    /// Time for the users to compare the code and decide, at first contact.
    public var pairingDecisionTimeout: Duration = .seconds(60)
    /// Largest HELLO.
    public var maximumHelloSize = 16 * 1024
    /// Largest other message before the connection is accepted.
    public var maximumPreAcceptanceMessageSize = 4 * 1024
    /// All messages after HELLO and before acceptance, together.
    public var maximumPreAcceptanceTotal = 16 * 1024
    /// Largest context payload of a connection request.
    public var maximumContextSize = 1024
    /// Longest instance token a HELLO may name, in UTF-8 bytes (as for adverts): a peer is looked up by it.
    public var maximumInstanceSize = 64

    public init() {}
}
