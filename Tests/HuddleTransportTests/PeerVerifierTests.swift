import Crypto
import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import NIOEmbedded
import NIOSSL
import SwiftASN1
import Synchronization
import Testing
import X509
import _CryptoExtras

/// `docs/security.md` §5, row D: TLS and identity, over real loopback TCP.
@Suite("The certificate verifier, fingerprints and TLS defaults (security.md table D)")
struct PeerVerifierTests {
    @Test func d3VerifierRefusesAChainOfTwo() async throws {
        let (leaf, authority, _) = try TLSIdentityTests.chainOfTwo()
        let verifier = PeerVerifier(expected: nil, isBlocked: { _ in false })
        let promise = EmbeddedEventLoop().makePromise(of: NIOSSLVerificationResultWithMetadata.self)
        verifier.verify(
            [try NIOSSLCertificate(bytes: leaf, format: .der), try NIOSSLCertificate(bytes: authority, format: .der)],
            promise
        )
        #expect(try await promise.futureResult.get() == .failed)
        #expect(verifier.rejection == .unacceptableCertificate("a chain of 2 certificates, not one"))
        #expect(verifier.presented == nil)

        // An empty chain is refused too.
        let empty = PeerVerifier(expected: nil, isBlocked: { _ in false })
        let second = EmbeddedEventLoop().makePromise(of: NIOSSLVerificationResultWithMetadata.self)
        empty.verify([], second)
        #expect(try await second.futureResult.get() == .failed)
        #expect(empty.rejection == .unacceptableCertificate("a chain of 0 certificates, not one"))
    }

    @Test(arguments: TLSIdentityTests.OtherKey.allCases)
    func d4VerifierRefusesKeysOtherThanP256(kind: TLSIdentityTests.OtherKey) async throws {
        let certificate = try NIOSSLCertificate(bytes: TestCertificates.selfSigned(kind.make()), format: .der)
        let verifier = PeerVerifier(expected: nil, isBlocked: { _ in false })
        let promise = EmbeddedEventLoop().makePromise(of: NIOSSLVerificationResultWithMetadata.self)
        verifier.verify([certificate], promise)
        #expect(try await promise.futureResult.get() == .failed)
        #expect(verifier.rejection == .unacceptableCertificate("the key is not a P-256 key"))
        #expect(verifier.presented == nil)
    }

    /// Certificates whose key BoringSSL cannot read at all (FuzzPeerCertificate's crashers, kept in
    /// `FuzzTesting/FailCases`): NIOSSL's `extractPublicKey()` stopped the process on them; now a plain refusal.
    @Test(arguments: ["secp256k1.der", "p256-explicit-params.der"])
    func d4KeysBoringSSLCannotReadAreRefusedNotFatal(file: String) async throws {
        let failCases = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../FuzzTesting/FailCases/FuzzPeerCertificate").standardized
        let der = try Data(contentsOf: failCases.appendingPathComponent(file))
        let certificate = try NIOSSLCertificate(bytes: Array(der), format: .der)
        let verifier = PeerVerifier(expected: nil, isBlocked: { _ in false })
        let promise = EmbeddedEventLoop().makePromise(of: NIOSSLVerificationResultWithMetadata.self)
        verifier.verify([certificate], promise)
        #expect(try await promise.futureResult.get() == .failed)
        #expect(verifier.rejection == .unacceptableCertificate("the key is not a P-256 key"))
        #expect(verifier.presented == nil)
    }

    @Test func d7FingerprintPathsAgree() throws {
        for _ in 0..<8 {
            let identity = try DeviceIdentity.ephemeral()
            let viaNIOSSL = try NIOSSLCertificate(bytes: identity.certificateDER, format: .der)
                .extractPublicKey()
                .toSPKIBytes()
            let viaCrypto = Array(identity.privateKey.publicKey.derRepresentation)
            var serializer = DER.Serializer()
            try serializer.serialize(try Certificate(derEncoded: identity.certificateDER).publicKey)
            let viaX509 = serializer.serializedBytes
            #expect(viaNIOSSL == viaCrypto)
            #expect(viaX509 == viaCrypto)
            #expect(viaCrypto.count == 91, "P-256 SPKI DER is 91 bytes")
            #expect(DeviceID(subjectPublicKeyInfo: viaNIOSSL) == identity.deviceID)
            #expect(DeviceID(subjectPublicKeyInfo: viaX509) == identity.deviceID)
            #expect(identity.fingerprint == Array(SHA256.hash(data: viaNIOSSL)))
            // The raw key bit string of swift-certificates is not the SPKI (`docs/security.md` §2).
            let rawKey = Array(try Certificate(derEncoded: identity.certificateDER).publicKey.subjectPublicKeyInfoBytes)
            #expect(rawKey != viaCrypto)
            #expect(rawKey == Array(identity.privateKey.publicKey.x963Representation))
        }
    }

    @Test func d11HandshakeDeadlineDefaultsToTenSeconds() {
        #expect(PeerConnectionConfiguration().tlsHandshakeTimeout == .seconds(10))
    }
}
