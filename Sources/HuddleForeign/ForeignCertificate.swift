public import Crypto
public import Foundation
import HuddleTransport
import SwiftASN1
public import X509

/// A certificate this device shows a foreign protocol, issued once for the device's key and kept
/// (`foreign/<name>.der` in the data directory), so that other devices can remember it: LocalSend knows a device
/// by its certificate's hash, KDE Connect pins the whole certificate. Issued again only when the key changed.
public enum ForeignCertificate {
    /// The kept certificate for `key`, or a new one (valid from a day ago for 20 years) kept for next time.
    public static func loadOrIssue(
        _ name: String,
        subject: @autoclosure () throws -> DistinguishedName,
        key: P256.Signing.PrivateKey,
        in directory: URL,
        now: Date = Date()
    ) throws -> [UInt8] {
        let folder = directory.appendingPathComponent("foreign", isDirectory: true)
        let file = folder.appendingPathComponent("\(name).der")
        try DataDirectory.prepare(directory)
        try DataDirectory.prepare(folder)
        if let data = FileManager.default.contents(atPath: file.path),
            let kept = try? Certificate(derEncoded: Array(data)),
            kept.publicKey == Certificate.PublicKey(key.publicKey)
        {
            return Array(data)
        }
        let der = try SelfSignedCertificate.issue(subject: subject(), key: key, now: now)
        try AtomicFile.write(der, to: file, mode: 0o600)
        return der
    }
}
