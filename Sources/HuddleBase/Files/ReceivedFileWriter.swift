public import Foundation
import HuddleWire

#if canImport(Glibc)
import Glibc
#endif

/// Writes one file that a foreign peer sends into a directory, by Huddle's rules for received files
/// (docs/security.md): a hidden partial file opened safely, never more bytes than announced, the SHA-256 checked
/// when the sender gave one, then the final name — or `name (2).ext` when that is taken. Nothing is overwritten.
///
/// Foreign protocols cannot resume, so the partial file's name is new each time and is removed on failure. A hidden
/// name is kept unhidden (``HiddenNames/foreignStoredName(_:)``: ".bash_profile" becomes "_bash_profile").
public final class ReceivedFileWriter {
    /// The name the file is kept under.
    public let name: String
    public let expectedSize: UInt64
    public private(set) var written: UInt64 = 0
    let directory: URL
    let partial: URL
    let handle: FileHandle
    let identity: FileIdentity
    var hasher = FileHasher()
    var closed = false

    /// Opens the partial file for `name` (checked: a plain file name) in `directory`.
    ///
    /// - Throws: ``FileTransferError`` saying what is wrong with the name or the directory.
    public init(name: String, in directory: URL, expectedSize: UInt64) throws {
        do {
            self.name = HiddenNames.foreignStoredName(try TransferName.validate(name))
        } catch {
            throw FileTransferError("refused \(name.debugDescription): \(error)")
        }
        self.expectedSize = expectedSize
        self.directory = directory
        let key = Hex.randomToken(byteCount: 8)
        partial = directory.appendingPathComponent(".\(self.name).\(key).huddle-partial")
        (handle, _, _, identity) = try PartialFile.openForWriting(partial, limit: 0)
    }

    /// Appends bytes; refuses any beyond the announced size.
    public func write(_ bytes: some DataProtocol) throws {
        guard written + UInt64(bytes.count) <= expectedSize else {
            throw FileTransferError(
                "\(name): the sender sent more than the \(expectedSize) bytes it announced"
            )
        }
        try handle.write(contentsOf: bytes)
        hasher.update(bytes)
        written += UInt64(bytes.count)
    }

    /// Checks the size and, when given, the SHA-256 (lowercase or uppercase hex), and gives the file its name.
    /// - Returns: where the file is now.
    public func finish(expectedSHA256: String?) throws -> URL {
        closed = true
        try handle.close()
        guard written == expectedSize else {
            unlink(partial.path)
            throw FileTransferError(
                "\(name): \(written) bytes arrived of the \(expectedSize) announced; nothing kept"
            )
        }
        if let expectedSHA256 {
            let digest = Hex.encode(hasher.digest())
            guard digest == expectedSHA256.lowercased() else {
                unlink(partial.path)
                throw FileTransferError("\(name): the SHA-256 does not match the sender's; nothing kept")
            }
        }
        return try PartialFile.keep(partial, as: name, in: directory, identity: identity)
    }

    /// Removes the partial file (a cancelled or failed transfer).
    public func abandon() {
        if !closed {
            closed = true
            try? handle.close()
        }
        unlink(partial.path)
    }

    /// The SHA-256 of what was written, lowercase hex.
    public var sha256: String { Hex.encode(hasher.digest()) }
}
