import Crypto
import Foundation
import HuddleTransport
import HuddleWire
import SwiftASN1
import Testing
import X509

/// The certificates Huddle shows (its own and the foreign protocols'): for signatures only, never a CA, valid
/// from a day before issue for twenty years, naming the subject, signed by the key they carry.
@Suite struct SelfSignedCertificateTests {
    @Test func aCertificateIsSelfSignedForSignaturesOnlyAndNeverACA() throws {
        let key = P256.Signing.PrivateKey()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let subject = try DistinguishedName { CommonName("Huddle test") }
        let der = try SelfSignedCertificate.issue(subject: subject, key: key, now: now)
        let certificate = try Certificate(derEncoded: der)

        #expect(certificate.subject == subject)
        #expect(certificate.issuer == subject)
        #expect(certificate.publicKey == Certificate.PublicKey(key.publicKey))
        #expect(certificate.publicKey.isValidSignature(certificate.signature, for: certificate))
        #expect(certificate.notValidBefore == now - 86_400)
        #expect(certificate.notValidAfter == now + 20 * 365 * 86_400)
        let constraints = try #require(try certificate.extensions.basicConstraints)
        #expect(constraints == .notCertificateAuthority)
        let usage = try #require(try certificate.extensions.keyUsage)
        #expect(usage.digitalSignature)
        #expect(!usage.keyCertSign)
        #expect(!usage.keyEncipherment)
    }

    @Test func theDeviceIdentityShowsItsOwnIDAsTheSubject() throws {
        let identity = try DeviceIdentity.ephemeral()
        let certificate = try Certificate(derEncoded: identity.certificateDER)
        #expect(certificate.subject.description.contains(identity.deviceID.description))
        #expect(certificate.publicKey == Certificate.PublicKey(identity.privateKey.publicKey))
    }
}
