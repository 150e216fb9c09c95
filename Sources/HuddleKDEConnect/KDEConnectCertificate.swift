import Crypto
import HuddleWire
import SwiftASN1
import X509

/// What a peer's certificate says that KDE Connect uses (docs/kdeconnect.md, "Identity"): its Common Name (the
/// device ID), its public key as DER SubjectPublicKeyInfo (for the verification key), and its SHA-256 (what is
/// pinned). Any key type: KDE Connect's own devices use RSA.
struct KDEConnectCertificate: Sendable, Hashable {
    let der: [UInt8]
    let commonName: String?
    let subjectPublicKeyInfo: [UInt8]
    /// SHA-256 of the DER, uppercase hex.
    let fingerprint: String

    init?(der: [UInt8]) {
        guard let certificate = try? Certificate(derEncoded: der), let spki = Self.subjectPublicKeyInfo(of: der)
        else { return nil }
        self.der = der
        subjectPublicKeyInfo = spki
        commonName = certificate.subject.flatMap { $0 }.first { $0.type == .RDNAttributeType.commonName }
            .flatMap { String($0.value) }
        fingerprint = Hex.encode(SHA256.hash(data: der), uppercase: true)
    }

    /// The SubjectPublicKeyInfo's own DER bytes: the seventh field of the TBSCertificate (the sixth when the
    /// version, `[0]`, is left out) — RFC 5280 §4.1.
    static func subjectPublicKeyInfo(of der: [UInt8]) -> [UInt8]? {
        guard let root = try? DER.parse(der), case .constructed(let certificate) = root.content,
            let tbs = certificate.first(where: { _ in true }), case .constructed(let fields) = tbs.content
        else { return nil }
        var items = Array(fields)
        if let first = items.first, first.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
            items.removeFirst()
        }
        guard items.count >= 6 else { return nil }
        return Array(items[5].encodedBytes)
    }
}
