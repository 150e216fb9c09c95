public import Crypto
public import Foundation
import SwiftASN1
public import X509

/// The self-signed certificates this device shows: its own (``DeviceIdentity``) and those it shows foreign
/// protocols. Keys are pinned, so nothing about trust rests on a certificate's dates or names
/// (`docs/security.md` §3.2).
public enum SelfSignedCertificate {
    /// A certificate for `key` naming `subject` (ECDSA with SHA-256, not a CA, for signatures only), valid from a
    /// day before `now` for twenty years; DER.
    public static func issue(
        subject: DistinguishedName,
        key: P256.Signing.PrivateKey,
        now: Date = Date()
    ) throws -> [UInt8] {
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now - 86_400,
            notValidAfter: now + 20 * 365 * 86_400,
            issuer: subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                KeyUsage(digitalSignature: true)
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
