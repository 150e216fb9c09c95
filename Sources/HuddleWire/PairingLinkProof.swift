import Crypto

/// The proof a pairing link's holder sends in its CONNECT_REQUEST (`docs/wire-protocol.md` §5.8):
///
///     HMAC-SHA256(S, "huddle-link-v1" ‖ FP_I ‖ FP_R ‖ SHA-256(HELLO_I ‖ HELLO_R))
///
/// S is the link's one-time secret. The proof binds it to both keys TLS proved and to this connection's HELLOs,
/// so it is no good on another connection or with another key.
public enum PairingLinkProof {
    /// Bytes of a link's secret: 128 bits.
    public static let secretSize = 16

    /// What the proof signs: everything but the secret.
    public static func binding(
        initiatorFingerprint: [UInt8],
        responderFingerprint: [UInt8],
        initiatorHello: [UInt8],
        responderHello: [UInt8]
    ) -> [UInt8] {
        var hellos = SHA256()
        hellos.update(data: initiatorHello)
        hellos.update(data: responderHello)
        return Array("huddle-link-v1".utf8) + initiatorFingerprint + responderFingerprint + Array(hellos.finalize())
    }

    public static func proof(secret: [UInt8], binding: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: binding, using: SymmetricKey(data: secret)))
    }

    /// Whether `proof` is `secret`'s over `binding`, compared in constant time.
    public static func isValid(_ proof: [UInt8], secret: [UInt8], binding: [UInt8]) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(proof, authenticating: binding, using: SymmetricKey(data: secret))
    }
}

/// The pairing links a device issued: each works once, until it expires (`docs/wire-protocol.md` §5.8). Pure:
/// time comes in as `now`.
public struct PairingLinkBook: Sendable {
    struct Issued: Sendable {
        var secret: [UInt8]
        var expires: ContinuousClock.Instant
    }

    private var issued: [Issued] = []
    /// Most links open at once; issuing another drops the oldest.
    public static let limit = 8

    public init() {}

    /// Links open now (issued, not used, not expired at `now`).
    public func openCount(now: ContinuousClock.Instant) -> Int { issued.filter { $0.expires > now }.count }

    /// Keeps `secret` (``PairingLinkProof/secretSize`` bytes) until `expires`.
    public mutating func issue(secret: [UInt8], expires: ContinuousClock.Instant) {
        precondition(secret.count == PairingLinkProof.secretSize, "a link secret is 16 bytes")
        issued.append(Issued(secret: secret, expires: expires))
        if issued.count > Self.limit { issued.removeFirst() }
    }

    /// Whether `proof` over `binding` is that of a link that is open at `now`; that link is used up when it is.
    /// Expired links are dropped. Every open link is checked, each in constant time.
    public mutating func redeem(proof: [UInt8], binding: [UInt8], now: ContinuousClock.Instant) -> Bool {
        issued.removeAll { $0.expires <= now }
        var match: Int?
        for (index, link) in issued.enumerated()
        where PairingLinkProof.isValid(proof, secret: link.secret, binding: binding) && match == nil {
            match = index
        }
        guard let match else { return false }
        issued.remove(at: match)
        return true
    }
}
