public import Crypto
public import Foundation
public import HuddleWire
import X509

/// This device's long-term key and its self-signed certificate (`docs/security.md` §3.2).
///
/// The P-256 key is made on first use and kept as PKCS#8 PEM with mode 0600 in `identity/key.pem` under the data
/// directory (mode 0700). The certificate is issued afresh from the key at every start — its dates play no part in
/// trust, keys are pinned — so the device ID, the SHA-256 of the key's SubjectPublicKeyInfo, never changes.
public struct DeviceIdentity: Sendable {
    public let privateKey: P256.Signing.PrivateKey
    /// The self-signed certificate, DER.
    public let certificateDER: [UInt8]
    /// SHA-256 of the SubjectPublicKeyInfo DER: FP in the pairing protocol, and the device ID's bytes.
    public let fingerprint: [UInt8]
    public var deviceID: DeviceID { try! DeviceID(bytes: fingerprint) }

    /// An identity for `privateKey`, with a new certificate valid from a day ago for twenty years.
    public init(privateKey: P256.Signing.PrivateKey, now: Date = Date()) throws {
        self.privateKey = privateKey
        let spki = privateKey.publicKey.derRepresentation
        self.fingerprint = Array(SHA256.hash(data: spki))
        let id = try DeviceID(bytes: fingerprint)
        let name = try DistinguishedName { CommonName(id.description) }
        self.certificateDER = try SelfSignedCertificate.issue(subject: name, key: privateKey, now: now)
    }

    /// A new identity that lives only in memory (tests, `--ephemeral`).
    public static func ephemeral() throws -> DeviceIdentity {
        try DeviceIdentity(privateKey: P256.Signing.PrivateKey())
    }

    /// Loads the key from `directory/identity/key.pem`, making it (and the directories) on first use.
    ///
    /// - Throws: ``IdentityError`` when the file exists but cannot be read or parsed (it is never replaced), when
    ///   its permissions let others read it, or when the data directory is not safe to use
    ///   (``DataDirectory/check(_:)``: another user owns it, or could change what is in it).
    public static func loadOrCreate(in directory: URL) throws -> DeviceIdentity {
        let folder = directory.appendingPathComponent("identity", isDirectory: true)
        let file = folder.appendingPathComponent("key.pem")
        let manager = FileManager.default
        do {
            try DataDirectory.prepare(directory)
            try DataDirectory.prepare(folder)
        } catch {
            throw IdentityError.unsafeDirectory(error)
        }
        func load() throws -> DeviceIdentity {
            let attributes = try manager.attributesOfItem(atPath: file.path)
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
            let owner = (attributes[.ownerAccountID] as? NSNumber)?.intValue ?? -1
            guard owner == Int(geteuid()) else { throw IdentityError.keyFileNotOwned(path: file.path, owner: owner) }
            guard mode & 0o077 == 0 else { throw IdentityError.keyFileTooOpen(path: file.path, mode: mode) }
            guard let pem = try? String(contentsOf: file, encoding: .utf8),
                let key = try? P256.Signing.PrivateKey(pemRepresentation: pem)
            else { throw IdentityError.unreadableKey(path: file.path) }
            return try DeviceIdentity(privateKey: key)
        }
        if manager.fileExists(atPath: file.path) { return try load() }
        let key = P256.Signing.PrivateKey()
        do {
            try AtomicFile.write(Array(key.pemRepresentation.utf8), to: file, mode: 0o600, replacing: false)
        } catch AtomicFileError.exists {
            // Another start made the key first: that one is the device's key.
            return try load()
        }
        return try DeviceIdentity(privateKey: key)
    }
}

/// Why the identity could not be loaded.
public enum IdentityError: Error, Hashable, Sendable, CustomStringConvertible {
    case unreadableKey(path: String)
    case keyFileTooOpen(path: String, mode: Int)
    /// The data directory, or the directory of the key, is not safe to use.
    case unsafeDirectory(DataDirectoryError)
    /// Another user owns the key file: whoever put it there knows the key.
    case keyFileNotOwned(path: String, owner: Int)

    public var description: String {
        switch self {
        case .unreadableKey(let path):
            "the device key at \(path) cannot be read; it was left untouched (move it away to make a new identity)"
        case .keyFileTooOpen(let path, let mode):
            "the device key at \(path) has mode \(String(mode, radix: 8)); run: chmod 600 \(path)"
        case .unsafeDirectory(let error):
            "the device key was not used: \(error)"
        case .keyFileNotOwned(let path, let owner):
            "the device key at \(path) belongs to uid \(owner), not to this user: it was not used (move it away to "
                + "make a new identity)"
        }
    }
}
