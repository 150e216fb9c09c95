public import Crypto

/// Every datagram secret of one session, derived once both KEYSHAREs have been exchanged (`docs/security.md` §3.7).
///
/// ```
/// PRK  = HKDF-Extract<SHA256>(salt: transcriptHash, ikm: s_I ‖ s_R)
/// k_*  = HKDF-Expand(PRK, "p2ps udp key i2r" ‖ FP_I ‖ FP_R, 32)   and "… key r2i"
/// iv_* = HKDF-Expand(PRK, "p2ps udp iv i2r"  ‖ FP_I ‖ FP_R, 12)   and "… iv r2i"
/// cid  = HKDF-Expand(PRK, "p2ps udp cid i"   ‖ FP_I ‖ FP_R, 8)    and "… cid r"
/// ```
///
/// Both peers compute the same schedule from the same inputs, then each takes its own half with ``keys(for:)``.
/// Binding both SPKI fingerprints into every label ties the keys to the pinned identities; the transcript hash as
/// salt ties them to this one TLS session, so a replayed KEYSHARE in another session yields unrelated keys.
public struct DatagramKeySchedule: Sendable {
    /// Length of each direction's ChaCha20-Poly1305 key.
    public static let keyByteCount = 32
    /// Length of each direction's IV, the ChaCha20-Poly1305 nonce length (RFC 8439 §2.8).
    public static let ivByteCount = 12
    /// Length of a connection ID.
    public static let connectionIDByteCount = 8
    /// Length of the transcript hash, the secrets and the fingerprints: all SHA-256 sized.
    public static let inputByteCount = 32

    /// Key for packets from initiator to responder.
    public let initiatorToResponderKey: SymmetricKey
    /// Key for packets from responder to initiator.
    public let responderToInitiatorKey: SymmetricKey
    /// IV for packets from initiator to responder.
    public let initiatorToResponderIV: [UInt8]
    /// IV for packets from responder to initiator.
    public let responderToInitiatorIV: [UInt8]
    /// `cid_I`: the ID the initiator receives on, carried by packets sent to it.
    public let initiatorConnectionID: DatagramConnectionID
    /// `cid_R`: the ID the responder receives on, carried by packets sent to it.
    public let responderConnectionID: DatagramConnectionID

    /// Derives the schedule.
    ///
    /// - Parameters:
    ///   - transcriptHash: SHA-256 of the control-channel transcript both sides agreed on (32 bytes).
    ///   - initiatorSecret: `s_I`, the initiator's 32 random KEYSHARE bytes.
    ///   - responderSecret: `s_R`, the responder's 32 random KEYSHARE bytes.
    ///   - initiatorFingerprint: `FP_I`, SHA-256 of the initiator's SPKI DER.
    ///   - responderFingerprint: `FP_R`, SHA-256 of the responder's SPKI DER.
    /// - Throws: ``DatagramError/invalidInputLength(name:expected:actual:)`` if any input is not 32 bytes.
    public init(
        transcriptHash: [UInt8],
        initiatorSecret: [UInt8],
        responderSecret: [UInt8],
        initiatorFingerprint: [UInt8],
        responderFingerprint: [UInt8]
    ) throws(DatagramError) {
        for (name, value) in [
            ("transcriptHash", transcriptHash),
            ("initiatorSecret", initiatorSecret),
            ("responderSecret", responderSecret),
            ("initiatorFingerprint", initiatorFingerprint),
            ("responderFingerprint", responderFingerprint),
        ] where value.count != Self.inputByteCount {
            throw .invalidInputLength(name: name, expected: Self.inputByteCount, actual: value.count)
        }
        let prk = HKDF<SHA256>.extract(
            inputKeyMaterial: SymmetricKey(data: initiatorSecret + responderSecret),
            salt: transcriptHash
        )
        let fingerprints = initiatorFingerprint + responderFingerprint
        func expand(_ label: String, _ count: Int) -> SymmetricKey {
            HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Array(label.utf8) + fingerprints, outputByteCount: count)
        }
        self.initiatorToResponderKey = expand("p2ps udp key i2r", Self.keyByteCount)
        self.responderToInitiatorKey = expand("p2ps udp key r2i", Self.keyByteCount)
        self.initiatorToResponderIV = expand("p2ps udp iv i2r", Self.ivByteCount).datagramBytes
        self.responderToInitiatorIV = expand("p2ps udp iv r2i", Self.ivByteCount).datagramBytes
        self.initiatorConnectionID = DatagramConnectionID(
            bytes: expand("p2ps udp cid i", Self.connectionIDByteCount).datagramBytes
        )!
        self.responderConnectionID = DatagramConnectionID(
            bytes: expand("p2ps udp cid r", Self.connectionIDByteCount).datagramBytes
        )!
    }

    /// The half of the schedule one side uses: what it seals with and what it opens with.
    ///
    /// The initiator sends with `k_I→R`/`iv_I→R` to `cid_R` and receives with `k_R→I`/`iv_R→I` on `cid_I`; the
    /// responder is the mirror image.
    public func keys(for role: DatagramRole) -> DatagramKeys {
        switch role {
        case .initiator:
            DatagramKeys(
                sendKey: initiatorToResponderKey,
                sendIV: initiatorToResponderIV,
                remoteConnectionID: responderConnectionID,
                receiveKey: responderToInitiatorKey,
                receiveIV: responderToInitiatorIV,
                localConnectionID: initiatorConnectionID
            )
        case .responder:
            DatagramKeys(
                sendKey: responderToInitiatorKey,
                sendIV: responderToInitiatorIV,
                remoteConnectionID: initiatorConnectionID,
                receiveKey: initiatorToResponderKey,
                receiveIV: initiatorToResponderIV,
                localConnectionID: responderConnectionID
            )
        }
    }
}

extension SymmetricKey {
    /// The raw key bytes, for IVs and connection IDs that come out of HKDF-Expand as keys.
    var datagramBytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }
}
