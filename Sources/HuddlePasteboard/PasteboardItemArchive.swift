public import Foundation

/// The byte format of a stored item: named pasteboards keep it in files, `huddle pb copy` hands it to its background
/// owner through a pipe.
///
/// ```
/// "HPB1"                          magic and version
/// u64 created   u64 expires       Unix seconds, big-endian; expires 0 = never
/// u32 count                       number of representations
/// count × (u32 typeLength, type UTF-8, u64 dataLength, data)
/// ```
///
/// Lengths are checked against the bytes present before anything is allocated, so a truncated or hostile file
/// gives ``PasteboardError/Code/malformedArchive`` rather than a crash or a huge allocation.
public struct PasteboardItemArchive: Hashable, Sendable {
    public var item: PasteboardItem
    /// When the item was stored, in whole seconds since 1970.
    public var created: Date
    /// When the item stops being readable; nil for never.
    public var expires: Date?

    static let magic = Data("HPB1".utf8)
    /// Type names longer than this are refused: MIME types and UTIs are short (RFC 6838 §4.2 caps a MIME name at 127
    /// characters per part).
    static let maximumTypeLength = 1024

    public init(item: PasteboardItem, created: Date = Date(), expires: Date? = nil) {
        self.item = item
        self.created = Date(timeIntervalSince1970: created.timeIntervalSince1970.rounded(.down))
        self.expires = expires.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) }
    }

    /// Whether the item has expired at `now`.
    public func isExpired(at now: Date) -> Bool {
        self.expires.map { $0 <= now } ?? false
    }

    /// The archive's bytes.
    public func encoded() -> Data {
        var out = Self.magic
        out.appendBigEndian(UInt64(max(0, self.created.timeIntervalSince1970)))
        out.appendBigEndian(UInt64(max(0, self.expires?.timeIntervalSince1970 ?? 0)))
        out.appendBigEndian(UInt32(self.item.representations.count))
        for representation in self.item.representations {
            let type = Data(representation.type.rawValue.utf8)
            out.appendBigEndian(UInt32(type.count))
            out.append(type)
            out.appendBigEndian(UInt64(representation.data.count))
            out.append(representation.data)
        }
        return out
    }

    /// Decodes an archive.
    ///
    /// - Throws: ``PasteboardError/Code/malformedArchive`` naming the offset where the bytes stop making sense.
    public init(decoding bytes: Data) throws {
        var reader = ArchiveReader(bytes: bytes)
        guard try reader.take(4) == Self.magic else {
            throw PasteboardError(.malformedArchive, "not a Huddle pasteboard item (bad magic at offset 0)")
        }
        let created = try reader.integer(UInt64.self)
        let expires = try reader.integer(UInt64.self)
        let count = try reader.integer(UInt32.self)
        var representations: [PasteboardItem.Representation] = []
        for _ in 0..<count {
            let typeLength = Int(try reader.integer(UInt32.self))
            guard typeLength > 0, typeLength <= Self.maximumTypeLength else {
                throw PasteboardError(
                    .malformedArchive,
                    "type name of \(typeLength) bytes at offset \(reader.offset - 4) (1…\(Self.maximumTypeLength))"
                )
            }
            let type = String(decoding: try reader.take(typeLength), as: UTF8.self)
            let dataLength = try reader.integer(UInt64.self)
            guard dataLength <= UInt64(reader.remaining) else {
                throw PasteboardError(
                    .malformedArchive,
                    "representation of \(dataLength) bytes at offset \(reader.offset - 8), only \(reader.remaining) left"
                )
            }
            representations.append(.init(type: PasteboardType(type), data: try reader.take(Int(dataLength))))
        }
        guard reader.remaining == 0 else {
            throw PasteboardError(.malformedArchive, "\(reader.remaining) stray bytes after the item")
        }
        self.init(
            item: PasteboardItem(representations),
            created: Date(timeIntervalSince1970: TimeInterval(created)),
            expires: expires == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(expires))
        )
    }
}

/// Reads big-endian integers and byte runs from an archive, with bounds checks.
private struct ArchiveReader {
    let bytes: Data
    var offset = 0

    init(bytes: Data) {
        self.bytes = Data(bytes)  // re-based so indices start at 0
    }

    var remaining: Int { self.bytes.count - self.offset }

    mutating func take(_ count: Int) throws -> Data {
        guard count >= 0, count <= self.remaining else {
            throw PasteboardError(
                .malformedArchive,
                "truncated at offset \(self.offset): \(count) bytes needed, \(self.remaining) left"
            )
        }
        defer { self.offset += count }
        return self.bytes.subdata(in: self.offset..<self.offset + count)
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        try self.take(MemoryLayout<T>.size).reduce(T(0)) { ($0 << 8) | T($1) }
    }
}

extension Data {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { self.append(contentsOf: $0) }
    }
}
