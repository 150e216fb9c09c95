import Crypto
import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOSSL
import SwiftASN1
import Testing
import X509

/// The device key on disk (`docs/security.md` §3.2, §5 D8).
@Suite("Device identity on disk")
struct DeviceIdentityTests {
    static func keyFile(in directory: URL) -> URL {
        directory.appendingPathComponent("identity", isDirectory: true).appendingPathComponent("key.pem")
    }

    @Test func keyIsMadeOnFirstUseWithPrivateModes() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let data = temporary.url.appendingPathComponent("data", isDirectory: true)
        let identity = try DeviceIdentity.loadOrCreate(in: data)
        let file = Self.keyFile(in: data)
        #expect(try ScratchDirectory.mode(of: file) == 0o600)
        #expect(try ScratchDirectory.mode(of: file.deletingLastPathComponent()) == 0o700)
        let pem = try String(contentsOf: file, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let stored = try P256.Signing.PrivateKey(pemRepresentation: pem)
        #expect(stored.rawRepresentation == identity.privateKey.rawRepresentation)
        #expect(identity.deviceID == DeviceID(subjectPublicKeyInfo: Array(stored.publicKey.derRepresentation)))
        #expect(try ScratchDirectory.temporaryFiles(in: file.deletingLastPathComponent()).isEmpty)
    }

    @Test func secondLoadGivesTheSameDeviceID() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let first = try DeviceIdentity.loadOrCreate(in: temporary.url)
        let bytes = try Data(contentsOf: Self.keyFile(in: temporary.url))
        let second = try DeviceIdentity.loadOrCreate(in: temporary.url)
        #expect(second.deviceID == first.deviceID)
        #expect(second.fingerprint == first.fingerprint)
        #expect(second.privateKey.rawRepresentation == first.privateKey.rawRepresentation)
        // The certificate is issued afresh (new serial); the ID does not depend on it.
        #expect(second.certificateDER != first.certificateDER)
        #expect(try Data(contentsOf: Self.keyFile(in: temporary.url)) == bytes)
        // Another directory is another device.
        let other = try ScratchDirectory()
        defer { other.remove() }
        #expect(try DeviceIdentity.loadOrCreate(in: other.url).deviceID != first.deviceID)
    }

    @Test func certificateNamesTheDeviceAndLoadsInNIOSSL() throws {
        let identity = try DeviceIdentity.ephemeral()
        let certificate = try Certificate(derEncoded: identity.certificateDER)
        #expect(certificate.subject == (try DistinguishedName { CommonName(identity.deviceID.description) }))
        #expect(certificate.issuer == certificate.subject)
        #expect(certificate.publicKey == Certificate.PublicKey(identity.privateKey.publicKey))
        #expect(certificate.publicKey.isValidSignature(certificate.signature, for: certificate))
        #expect(certificate.notValidAfter.timeIntervalSince(certificate.notValidBefore) > 19 * 365 * 86_400)
        let loaded = try NIOSSLCertificate(bytes: identity.certificateDER, format: .der)
        #expect(try loaded.toDERBytes() == identity.certificateDER)
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660])
    func keyFileReadableByOthersIsRefusedAndLeftAlone(mode: Int) throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        _ = try DeviceIdentity.loadOrCreate(in: temporary.url)
        let file = Self.keyFile(in: temporary.url)
        try ScratchDirectory.setMode(mode, of: file)
        let before = try Data(contentsOf: file)
        #expect(throws: IdentityError.keyFileTooOpen(path: file.path, mode: mode)) {
            try DeviceIdentity.loadOrCreate(in: temporary.url)
        }
        #expect(try Data(contentsOf: file) == before)
        #expect(try ScratchDirectory.mode(of: file) == mode)
    }

    @Test(arguments: [
        Array("garbage, not a key\n".utf8),
        [],
        Array("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8),
        [0xFF, 0xFE, 0x00, 0x80, 0xC3],
    ])
    func unreadableKeyIsRefusedAndLeftAlone(contents: [UInt8]) throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let file = Self.keyFile(in: temporary.url)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        #expect(
            FileManager.default.createFile(
                atPath: file.path,
                contents: Data(contents),
                attributes: [.posixPermissions: 0o600]
            )
        )
        #expect(throws: IdentityError.unreadableKey(path: file.path)) {
            try DeviceIdentity.loadOrCreate(in: temporary.url)
        }
        #expect(try Data(contentsOf: file) == Data(contents))
        #expect(try ScratchDirectory.mode(of: file) == 0o600)
    }

    @Test func keyOfAnotherCurveIsUnreadable() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let file = Self.keyFile(in: temporary.url)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        let pem = Data(P384.Signing.PrivateKey().pemRepresentation.utf8)
        #expect(
            FileManager.default.createFile(atPath: file.path, contents: pem, attributes: [.posixPermissions: 0o600])
        )
        #expect(throws: IdentityError.unreadableKey(path: file.path)) {
            try DeviceIdentity.loadOrCreate(in: temporary.url)
        }
        #expect(try Data(contentsOf: file) == pem)
    }

    /// Two starts racing on a fresh directory (two processes, or two sessions in one) end up with one key: the one
    /// on disk.
    @Test func racingFirstStartsAgreeOnOneKey() async throws {
        for _ in 0..<10 {
            let temporary = try ScratchDirectory()
            defer { temporary.remove() }
            let directory = temporary.url
            let ids = try await withThrowingTaskGroup(of: DeviceID.self) { group in
                for _ in 0..<8 {
                    group.addTask { try DeviceIdentity.loadOrCreate(in: directory).deviceID }
                }
                return try await group.reduce(into: Set<DeviceID>()) { $0.insert($1) }
            }
            let onDisk = try P256.Signing.PrivateKey(
                pemRepresentation: String(contentsOf: Self.keyFile(in: directory), encoding: .utf8)
            )
            #expect(ids == [DeviceID(subjectPublicKeyInfo: Array(onDisk.publicKey.derRepresentation))])
            #expect(
                try ScratchDirectory.temporaryFiles(in: Self.keyFile(in: directory).deletingLastPathComponent())
                    .isEmpty
            )
        }
    }
}
