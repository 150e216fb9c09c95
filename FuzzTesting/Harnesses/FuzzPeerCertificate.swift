import Crypto
import HuddleTransport
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOSSL
import SwiftASN1
import X509

/// DER bytes as the certificate a peer presents in TLS → Huddle's certificate policy (`PeerVerifier`;
/// docs/security.md §5 A7). A single certificate is accepted only when its key is P-256, and then as the device
/// whose ID is the SHA-256 of that key; the same certificate twice (a chain of two) is never accepted. Where
/// swift-certificates reads the same bytes, it must see the same P-256 key.
public func fuzzPeerCertificate(_ input: UnsafeRawBufferPointer) throws(FuzzInvariantViolation) {
    let bytes = Array(input)
    guard let certificate = try? NIOSSLCertificate(bytes: bytes, format: .der) else { return }
    try require(try judge([certificate, certificate]) == nil, "a chain of two certificates was accepted")
    guard let id = try judge([certificate]) else { return }
    guard let spki = try? certificate.extractPublicKey().toSPKIBytes(),
        let key = try? P256.Signing.PublicKey(derRepresentation: spki)
    else { throw violation("accepted a certificate whose key is not P-256") }
    try require(id == DeviceID(subjectPublicKeyInfo: spki), "the device ID is not the key's")
    if let parsed = try? Certificate(derEncoded: bytes) {
        guard let other = P256.Signing.PublicKey(parsed.publicKey) else {
            throw violation("accepted a key that swift-certificates does not read as P-256")
        }
        try require(other.x963Representation == key.x963Representation, "the two parsers see different keys")
    }
}

/// What a fresh verifier (nothing pinned, nothing blocked) makes of `chain`: the device, or nil when refused.
private func judge(_ chain: [NIOSSLCertificate]) throws(FuzzInvariantViolation) -> DeviceID? {
    let loop = EmbeddedEventLoop()
    let verifier = PeerVerifier(expected: nil, isBlocked: { _ in false })
    let promise = loop.makePromise(of: NIOSSLVerificationResultWithMetadata.self)
    verifier.verify(chain, promise)
    let answer = NIOLockedValueBox<Bool?>(nil)
    promise.futureResult.whenSuccess { result in
        let accepted = if case .certificateVerified = result { true } else { false }
        answer.withLockedValue { $0 = accepted }
    }
    loop.run()
    guard let verified = answer.withLockedValue({ $0 }) else { throw violation("the verifier did not answer") }
    try require(verified == (verifier.presented != nil), "the verdict and the presented device disagree")
    try require(verified || verifier.rejection != nil, "a refusal without a reason")
    return verified ? verifier.presented : nil
}
