public import NIOCore

/// Limits a receiver applies to a directory offer's manifest (`docs/wire-protocol.md` §7.4: every count a peer
/// declares is bounded before it is trusted).
public struct DirectoryManifestLimits: Hashable, Sendable {
    /// Most entries (files and directories). 10,000 entries of typical paths encode to well under the default
    /// 1 MiB message limit, which one manifest must fit in.
    public var maximumEntries = 10_000
    /// Most bytes of the encoded manifest: the default message limit, less room for the offer's other fields.
    public var maximumManifestBytes = 1024 * 1024 - 8 * 1024
    /// Most bytes of one relative path: Linux's `PATH_MAX`.
    public var maximumPathBytes = 4096
    /// Most components of one path; deeper trees are rare and a risk to tools that recurse.
    public var maximumDepth = 64
    /// Most bytes of all files together (1 TiB): a bound on what a receiver is asked to store.
    public var maximumTotalSize: UInt64 = 1 << 40

    public init() {}
}

/// One file or directory in a directory offer, named by its path relative to the offered directory.
public struct DirectoryEntry: Hashable, Sendable {
    /// `/`-separated, relative; untrusted until ``DirectoryOffer/validate(limits:)`` passes.
    public var path: String
    public var kind: Kind

    /// A file with its size and 32-byte resume key (what the receiver finds its part of an interrupted run by;
    /// not a checksum: the file's SHA-256 comes with its ENTRY-END), or a directory (listed so that empty ones
    /// are recreated too).
    public enum Kind: Hashable, Sendable {
        case file(size: UInt64, key: [UInt8])
        case directory
    }

    public init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
    }

    public var size: UInt64 {
        if case .file(let size, _) = kind { return size }
        return 0
    }

    public var isFile: Bool {
        if case .file = kind { return true }
        return false
    }
}

/// What a sender proposes for a directory: its name and a manifest of every file (size, resume key) and directory
/// in it, sent in one message so that the receiver can answer once for the whole tree (which files it still needs,
/// and from which offset) — no round trip per file.
public struct DirectoryOffer: Hashable, Sendable {
    public var id: TransferID
    /// The directory's own name; untrusted (``TransferName`` decides).
    public var name: String
    /// A MIME type or similar hint, or empty.
    public var type: String
    /// Parents before children; the order is the order files are numbered in (``TransferResumePoint/index``).
    public var entries: [DirectoryEntry]

    public init(id: TransferID, name: String, type: String = "", entries: [DirectoryEntry]) {
        self.id = id
        self.name = name
        self.type = type
        self.entries = entries
    }

    /// The sum of all file sizes (saturating, so a hostile manifest cannot wrap it round).
    public var totalSize: UInt64 {
        entries.reduce(0) { sum, entry in
            let (total, overflow) = sum.addingReportingOverflow(entry.size)
            return overflow ? .max : total
        }
    }

    public var fileCount: Int { entries.count { $0.isFile } }

    /// Checks the whole manifest: the name, every path (see ``TransferPath``), that no two entries name the same
    /// place and none lies below a file, and the limits.
    /// - Throws: ``DirectoryManifestError`` for the first problem found (``TransferNameError`` for the name).
    public func validate(limits: DirectoryManifestLimits = .init()) throws {
        _ = try TransferName.validate(name)
        guard entries.count <= limits.maximumEntries else {
            throw DirectoryManifestError.tooManyEntries(entries.count, limit: limits.maximumEntries)
        }
        let encoded = UInt64(Self.encodedSize(of: entries))
        guard encoded <= limits.maximumManifestBytes else {
            throw DirectoryManifestError.tooLarge(encoded, limit: UInt64(limits.maximumManifestBytes))
        }
        guard totalSize <= limits.maximumTotalSize else {
            throw DirectoryManifestError.tooLarge(totalSize, limit: limits.maximumTotalSize)
        }
        var isFile: [String: Bool] = [:]  // by path folded to lower case
        var folded: [[String]] = []
        folded.reserveCapacity(entries.count)
        for entry in entries {
            let parts = try TransferPath.components(
                of: entry.path,
                maximumBytes: limits.maximumPathBytes,
                maximumDepth: limits.maximumDepth
            ).map { $0.lowercased() }
            guard isFile.updateValue(entry.isFile, forKey: parts.joined(separator: "/")) == nil else {
                throw DirectoryManifestError.duplicatePath(entry.path)
            }
            folded.append(parts)
        }
        for (entry, parts) in zip(entries, folded) {
            for depth in 1..<max(1, parts.count) where isFile[parts.prefix(depth).joined(separator: "/")] == true {
                throw DirectoryManifestError.parentIsFile(entry.path)
            }
        }
    }

    /// Bytes the entries take on the wire.
    static func encodedSize(of entries: [DirectoryEntry]) -> Int {
        entries.reduce(4) { sum, entry in sum + 3 + min(entry.path.utf8.count, 4096) + (entry.isFile ? 40 : 0) }
    }

    private static let fileTag: UInt8 = 1
    private static let directoryTag: UInt8 = 2

    /// Writes the name, type and entries as they go on the wire (after the message tag and transfer ID); the
    /// receiver hashes these bytes to recognise the same directory offered again.
    public func encodeManifest(into buffer: inout ByteBuffer) {
        buffer.writeTransferString(name)
        buffer.writeTransferString(type)
        buffer.writeInteger(UInt32(entries.count))
        for entry in entries {
            switch entry.kind {
            case .file(let size, let key):
                buffer.writeInteger(Self.fileTag)
                buffer.writeTransferString(entry.path)
                buffer.writeInteger(size)
                buffer.writeBytes(key)
            case .directory:
                buffer.writeInteger(Self.directoryTag)
                buffer.writeTransferString(entry.path)
            }
        }
    }

    /// Reads what ``encodeManifest(into:)`` wrote (the offer's body on the wire, or a receiver's kept copy); the
    /// count is checked against the bytes left (an entry takes at least 3 bytes) before anything is reserved, so
    /// a lying count cannot make the receiver allocate. Untrusted until ``validate(limits:)`` passes.
    public init(id: TransferID, decodingBody buffer: inout ByteBuffer) throws {
        let name = try buffer.readTransferString()
        let type = try buffer.readTransferString()
        guard let count = buffer.readInteger(as: UInt32.self), Int(count) <= buffer.readableBytes / 3 else {
            throw PeerWireError.malformedMessage("transfer: directory entry count beyond the message")
        }
        var entries: [DirectoryEntry] = []
        entries.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let tag = buffer.readInteger(as: UInt8.self) else { throw Self.endsEarly }
            let path = try buffer.readTransferString()
            switch tag {
            case Self.fileTag:
                guard let size = buffer.readInteger(as: UInt64.self), let key = buffer.readBytes(length: 32) else {
                    throw Self.endsEarly
                }
                entries.append(DirectoryEntry(path: path, kind: .file(size: size, key: key)))
            case Self.directoryTag:
                entries.append(DirectoryEntry(path: path, kind: .directory))
            default:
                throw PeerWireError.malformedMessage("transfer: unknown directory entry kind \(tag)")
            }
        }
        self.init(id: id, name: name, type: type, entries: entries)
    }

    private static var endsEarly: PeerWireError { .malformedMessage("transfer: directory manifest ends early") }
}

/// Where the sender should start one file of a directory: the file's index among the manifest's entries and the
/// offset the receiver already has (0 for a file it has nothing of). Files the receiver has complete and verified
/// are simply not listed.
public struct TransferResumePoint: Hashable, Sendable {
    public var index: UInt32
    public var offset: UInt64

    public init(index: UInt32, offset: UInt64) {
        self.index = index
        self.offset = offset
    }
}
