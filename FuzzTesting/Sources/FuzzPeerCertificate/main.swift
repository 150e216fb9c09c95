import Crypto
import HuddleTransport
import HuddleWire
import NIOCore
import NIOEmbedded
import NIOSSL
import X509

/// DER bytes as the certificate a peer presents in TLS → Huddle's certificate policy (`PeerVerifier`;
/// docs/security.md §5 A7). A single certificate is accepted only when its key is P-256, and then as the device
/// whose ID is the SHA-256 of that key; the same certificate twice (a chain of two) is never accepted. Where
/// swift-certificates reads the same bytes, it must see the same P-256 key.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let certificate = try? NIOSSLCertificate(bytes: bytes, format: .der) else { return 0 }
    precondition(judge([certificate, certificate]) == nil, "a chain of two certificates was accepted")
    guard let id = judge([certificate]) else { return 0 }
    guard let spki = try? certificate.extractPublicKey().toSPKIBytes(),
        let key = try? P256.Signing.PublicKey(derRepresentation: spki)
    else { preconditionFailure("accepted a certificate whose key is not P-256") }
    precondition(id == DeviceID(subjectPublicKeyInfo: spki), "the device ID is not the key's")
    if let parsed = try? Certificate(derEncoded: bytes) {
        guard let other = P256.Signing.PublicKey(parsed.publicKey) else {
            preconditionFailure("accepted a key that swift-certificates does not read as P-256")
        }
        precondition(other.x963Representation == key.x963Representation, "the two parsers see different keys")
    }
    return 0
}

/// What a fresh verifier (nothing pinned, nothing blocked) makes of `chain`: the device, or nil when refused.
func judge(_ chain: [NIOSSLCertificate]) -> DeviceID? {
    let loop = EmbeddedEventLoop()
    let verifier = PeerVerifier(expected: nil, isBlocked: { _ in false })
    let promise = loop.makePromise(of: NIOSSLVerificationResultWithMetadata.self)
    verifier.verify(chain, promise)
    var verified: Bool?
    promise.futureResult.whenSuccess { result in
        if case .certificateVerified = result { verified = true } else { verified = false }
    }
    loop.run()
    guard let verified else { preconditionFailure("the verifier did not answer") }
    precondition(verified == (verifier.presented != nil), "the verdict and the presented device disagree")
    precondition(verified || verifier.rejection != nil, "a refusal without a reason")
    return verified ? verifier.presented : nil
}
