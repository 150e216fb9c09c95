public import Crypto
import Foundation

/// The short authentication string of first contact, with commitment (`docs/security.md` §3.5).
///
/// Inside TLS, the initiator commits to a nonce n_I before it sees the responder's nonce n_R; both then derive
/// K_sas from both nonces, the two HELLOs and both key fingerprints *as each side observed them in TLS*, and show
/// the first 32 bits of K_sas modulo 10^6 as a six-digit code. A man in the middle runs two TLS sessions with its
/// own keys, so the fingerprints, and therefore the codes, differ; the commitment stops it from choosing a nonce
/// after seeing the other (SAS-MCA, as in Bluetooth numeric comparison and ZRTP).
public struct ShortAuthenticationString: Hashable, Sendable {
    /// K_sas: 32 bytes, also the key of the DECISION confirmations.
    public var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    let keyBytes: [UInt8]
    /// The code to compare, 0…999 999.
    public let code: UInt32

    static let commitLabel = Array("p2ps-sas-commit-v1".utf8)
    static let sasLabel = Array("p2ps-sas-v1".utf8)
    static let confirmLabel = Array("p2ps-confirm-v1".utf8)

    /// SHA-256("p2ps-sas-commit-v1" ‖ FP_I ‖ FP_R ‖ n_I), sent in CONNECT_REQUEST.
    public static func commitment(
        initiatorFingerprint: [UInt8],
        responderFingerprint: [UInt8],
        initiatorNonce: [UInt8]
    ) -> [UInt8] {
        var hash = SHA256()
        hash.update(data: commitLabel)
        hash.update(data: initiatorFingerprint)
        hash.update(data: responderFingerprint)
        hash.update(data: initiatorNonce)
        return Array(hash.finalize())
    }

    /// K_sas = HKDF-SHA256(ikm: n_I ‖ n_R, salt: SHA-256(HELLO_I ‖ HELLO_R), info: "p2ps-sas-v1" ‖ FP_I ‖ FP_R).
    public init(
        initiatorNonce: [UInt8],
        responderNonce: [UInt8],
        initiatorHello: [UInt8],
        responderHello: [UInt8],
        initiatorFingerprint: [UInt8],
        responderFingerprint: [UInt8]
    ) {
        let salt = Array(SHA256.hash(data: initiatorHello + responderHello))
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: initiatorNonce + responderNonce),
            salt: salt,
            info: Self.sasLabel + initiatorFingerprint + responderFingerprint,
            outputByteCount: 32
        )
        self.keyBytes = key.withUnsafeBytes { Array($0) }
        self.code = key.withUnsafeBytes { bytes in
            (UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])) % 1_000_000
        }
    }

    /// The code as people read it: "123 456".
    public var displayCode: String {
        let digits = String(code)
        let padded = String(repeating: "0", count: 6 - digits.count) + digits
        return "\(padded.prefix(3)) \(padded.suffix(3))"
    }

    /// HMAC-SHA256(K_sas, "p2ps-confirm-v1" ‖ role ‖ transcript): proves in DECISION that this side derived the
    /// same K_sas, so a decision cannot be replayed into another pairing run.
    public func confirmation(role: PeerRole, transcript: [UInt8]) -> [UInt8] {
        let mac = HMAC<SHA256>.authenticationCode(for: Self.confirmLabel + [role.rawValue] + transcript, using: key)
        return Array(mac)
    }

    /// Checks the peer's confirmation in constant time.
    public func isValidConfirmation(_ confirmation: [UInt8], role: PeerRole, transcript: [UInt8]) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(
            confirmation,
            authenticating: Self.confirmLabel + [role.rawValue] + transcript,
            using: key
        )
    }
}

/// Which end of a connection: the side that dialled (initiator) or the side that answered (responder).
public enum PeerRole: UInt8, Hashable, Sendable {
    case initiator = 0x49  // "I"
    case responder = 0x52  // "R"

    /// The other end.
    public var other: PeerRole { self == .initiator ? .responder : .initiator }
}
