import HuddleWire
import NIOConcurrencyHelpers

/// One session's issued pairing links (``PairingLinkBook``), shared by all its connections (any thread): a
/// responder's handshake asks it about a link proof (`docs/wire-protocol.md` §5.8).
public final class PairingLinks: Sendable {
    private let book = NIOLockedValueBox(PairingLinkBook())
    private let now: @Sendable () -> ContinuousClock.Instant

    /// - Parameter now: the links' clock; tests move it by hand.
    public init(now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.now = now
    }

    /// Keeps `secret` open for `lifetime` from now.
    public func issue(secret: [UInt8], lifetime: Duration) {
        let expires = now() + lifetime
        book.withLockedValue { $0.issue(secret: secret, expires: expires) }
    }

    /// Whether `proof` is that of an open link, which it then uses up.
    public func redeem(proof: [UInt8], binding: [UInt8]) -> Bool {
        let now = now()
        return book.withLockedValue { $0.redeem(proof: proof, binding: binding, now: now) }
    }

    /// Links issued, unused and unexpired now.
    public var openCount: Int {
        let now = now()
        return book.withLockedValue { $0.openCount(now: now) }
    }
}
