public import NIOCore

/// Identifies one transfer: 16 random bytes chosen by the sender.
public struct TransferID: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        precondition(bytes.count == 16, "a transfer ID is 16 bytes")
        self.bytes = bytes
    }

    public var description: String { Hex.encode(bytes.prefix(4)) }
}

/// What a sender proposes: one file, its size and the key a resume finds it by.
public struct TransferOffer: Hashable, Sendable {
    public var id: TransferID
    /// The file name as the sender gave it; untrusted (``TransferName`` decides what may be written).
    public var name: String
    public var size: UInt64
    /// 32 bytes naming the content for a resume: the receiver keeps an interrupted transfer's partial file under
    /// it, and an offer with the same key continues that file. Not a checksum: the SHA-256 of the whole file
    /// comes with END, computed while sending, and the receiver checks it before the file gets its name.
    public var resumeKey: [UInt8]
    /// A MIME type, or empty.
    public var type: String

    public init(id: TransferID, name: String, size: UInt64, resumeKey: [UInt8], type: String = "") {
        self.id = id
        self.name = name
        self.size = size
        self.resumeKey = resumeKey
        self.type = type
    }
}

/// The messages of the resource stream (stream 2): a transfer is OFFER → ACCEPT(offset) or DECLINE → CHUNK… →
/// END(SHA-256) → RESULT; either side may CANCEL. ACCEPT's offset is where a kept partial file ends, so an
/// interrupted transfer of the same content (the same resume key) continues instead of starting over. The sender
/// hashes the file while it sends (the part the receiver had included) and END carries the SHA-256 of the whole
/// file, which the receiver compares with its own before it keeps the file: no pass over the file before the
/// offer.
///
/// A directory is DIRECTORY-OFFER (the whole manifest, each file with its resume key) → DIRECTORY-ACCEPT (the
/// files still needed, each with its resume offset) or DECLINE → for each file, in the order accepted,
/// ENTRY-CHUNK… then ENTRY-END (its SHA-256, hashed while sending) → END → RESULT: one answer for the whole tree,
/// so many small files cost no round trip each, and no file is read before the offer beyond its key's samples.
public enum TransferMessage: Hashable, Sendable {
    case offer(TransferOffer)
    case accept(TransferID, offset: UInt64)
    case decline(TransferID, reason: String)
    /// Bytes of the file from `offset`.
    case chunk(TransferID, offset: UInt64, data: ByteBuffer)
    /// The sender is done; for a file, with the SHA-256 of the whole file (nil ends a directory, whose files'
    /// SHA-256s came with their ENTRY-ENDs).
    case end(TransferID, sha256: [UInt8]?)
    /// The receiver's verdict after checking size and SHA-256.
    case result(TransferID, ok: Bool, reason: String)
    case cancel(TransferID, reason: String)
    /// A directory and its manifest.
    case directoryOffer(DirectoryOffer)
    /// The files of a directory offer the receiver still needs; those not listed it has, verified.
    case directoryAccept(TransferID, needed: [TransferResumePoint])
    /// Bytes of the file at `index` of a directory offer's entries, from `offset`.
    case entryChunk(TransferID, index: UInt32, offset: UInt64, data: ByteBuffer)
    /// The file at `index` of a directory offer is sent whole: the SHA-256 of all of it (the part the receiver
    /// had before included), which the receiver checks before the file gets its name.
    case entryEnd(TransferID, index: UInt32, sha256: [UInt8])

    private enum Tag: UInt8 {
        case offer = 1
        case accept = 2
        case decline = 3
        case chunk = 4
        case end = 5
        case result = 6
        case cancel = 7
        case directoryOffer = 8
        case directoryAccept = 9
        case entryChunk = 10
        case entryEnd = 11
    }

    public var id: TransferID {
        switch self {
        case .offer(let offer): offer.id
        case .directoryOffer(let offer): offer.id
        case .directoryAccept(let id, _), .entryChunk(let id, _, _, _), .entryEnd(let id, _, _): id
        case .accept(let id, _), .decline(let id, _), .chunk(let id, _, _), .end(let id, _), .result(let id, _, _),
            .cancel(let id, _):
            id
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        switch self {
        case .offer(let offer):
            buffer.writeInteger(Tag.offer.rawValue)
            buffer.writeBytes(offer.id.bytes)
            buffer.writeInteger(offer.size)
            buffer.writeBytes(offer.resumeKey)
            buffer.writeTransferString(offer.name)
            buffer.writeTransferString(offer.type)
        case .accept(let id, let offset):
            buffer.writeInteger(Tag.accept.rawValue)
            buffer.writeBytes(id.bytes)
            buffer.writeInteger(offset)
        case .decline(let id, let reason), .cancel(let id, let reason):
            buffer.writeInteger(self.isCancel ? Tag.cancel.rawValue : Tag.decline.rawValue)
            buffer.writeBytes(id.bytes)
            buffer.writeTransferString(reason)
        case .chunk(let id, let offset, var data):
            Self.writeChunkHeader(id, offset: offset, into: &buffer)
            buffer.writeBuffer(&data)
        case .end(let id, let sha256):
            buffer.writeInteger(Tag.end.rawValue)
            buffer.writeBytes(id.bytes)
            if let sha256 { buffer.writeBytes(sha256) }
        case .result(let id, let ok, let reason):
            buffer.writeInteger(Tag.result.rawValue)
            buffer.writeBytes(id.bytes)
            buffer.writeInteger(UInt8(ok ? 1 : 0))
            buffer.writeTransferString(reason)
        case .directoryOffer(let offer):
            buffer.writeInteger(Tag.directoryOffer.rawValue)
            buffer.writeBytes(offer.id.bytes)
            offer.encodeManifest(into: &buffer)
        case .directoryAccept(let id, let needed):
            buffer.writeInteger(Tag.directoryAccept.rawValue)
            buffer.writeBytes(id.bytes)
            buffer.writeInteger(UInt32(needed.count))
            for point in needed {
                buffer.writeInteger(point.index)
                buffer.writeInteger(point.offset)
            }
        case .entryChunk(let id, let index, let offset, var data):
            Self.writeEntryChunkHeader(id, index: index, offset: offset, into: &buffer)
            buffer.writeBuffer(&data)
        case .entryEnd(let id, let index, let sha256):
            buffer.writeInteger(Tag.entryEnd.rawValue)
            buffer.writeBytes(id.bytes)
            buffer.writeInteger(index)
            buffer.writeBytes(sha256)
        }
    }

    /// The bytes of a CHUNK before its data: `.chunk(id, offset, data)` is these followed by the data, so a
    /// sender can read a file straight into the message after them.
    public static let chunkHeaderSize = 1 + 16 + 8

    /// Writes a CHUNK's header; the caller appends the data.
    public static func writeChunkHeader(_ id: TransferID, offset: UInt64, into buffer: inout ByteBuffer) {
        buffer.writeInteger(Tag.chunk.rawValue)
        buffer.writeBytes(id.bytes)
        buffer.writeInteger(offset)
    }

    /// The bytes of an ENTRY_CHUNK before its data (see ``chunkHeaderSize``).
    public static let entryChunkHeaderSize = 1 + 16 + 4 + 8

    /// Writes an ENTRY_CHUNK's header; the caller appends the data.
    public static func writeEntryChunkHeader(
        _ id: TransferID,
        index: UInt32,
        offset: UInt64,
        into buffer: inout ByteBuffer
    ) {
        buffer.writeInteger(Tag.entryChunk.rawValue)
        buffer.writeBytes(id.bytes)
        buffer.writeInteger(index)
        buffer.writeInteger(offset)
    }

    private var isCancel: Bool {
        if case .cancel = self { return true }
        return false
    }

    /// Decodes one whole message; a chunk's data is a slice of `buffer`, not a copy.
    public init(decoding buffer: ByteBuffer) throws {
        var buffer = buffer
        func fail(_ detail: String) -> PeerWireError { .malformedMessage("transfer: \(detail)") }
        guard let raw = buffer.readInteger(as: UInt8.self), let tag = Tag(rawValue: raw) else {
            throw fail("unknown message")
        }
        guard let idBytes = buffer.readBytes(length: 16) else { throw fail("no transfer ID") }
        let id = TransferID(bytes: idBytes)
        switch tag {
        case .offer:
            guard let size = buffer.readInteger(as: UInt64.self), let key = buffer.readBytes(length: 32) else {
                throw fail("offer ends early")
            }
            let name = try buffer.readTransferString()
            let type = try buffer.readTransferString()
            self = .offer(TransferOffer(id: id, name: name, size: size, resumeKey: key, type: type))
        case .accept:
            guard let offset = buffer.readInteger(as: UInt64.self) else { throw fail("accept ends early") }
            self = .accept(id, offset: offset)
        case .decline: self = .decline(id, reason: try buffer.readTransferString())
        case .cancel: self = .cancel(id, reason: try buffer.readTransferString())
        case .chunk:
            guard let offset = buffer.readInteger(as: UInt64.self) else { throw fail("chunk ends early") }
            self = .chunk(id, offset: offset, data: buffer.readSlice(length: buffer.readableBytes)!)
            return
        case .end:
            guard buffer.readableBytes == 0 || buffer.readableBytes == 32 else { throw fail("END's SHA-256 is cut") }
            self = .end(id, sha256: buffer.readBytes(length: buffer.readableBytes).flatMap { $0.isEmpty ? nil : $0 })
        case .result:
            guard let ok = buffer.readInteger(as: UInt8.self), ok <= 1 else { throw fail("bad result flag") }
            self = .result(id, ok: ok == 1, reason: try buffer.readTransferString())
        case .directoryOffer:
            self = .directoryOffer(try DirectoryOffer(id: id, decodingBody: &buffer))
        case .directoryAccept:
            guard let count = buffer.readInteger(as: UInt32.self), Int(count) <= buffer.readableBytes / 12 else {
                throw fail("directory accept count beyond the message")
            }
            var needed: [TransferResumePoint] = []
            needed.reserveCapacity(Int(count))
            for _ in 0..<count {
                let index = buffer.readInteger(as: UInt32.self)!
                needed.append(TransferResumePoint(index: index, offset: buffer.readInteger(as: UInt64.self)!))
            }
            self = .directoryAccept(id, needed: needed)
        case .entryChunk:
            guard let index = buffer.readInteger(as: UInt32.self), let offset = buffer.readInteger(as: UInt64.self)
            else { throw fail("entry chunk ends early") }
            self = .entryChunk(id, index: index, offset: offset, data: buffer.readSlice(length: buffer.readableBytes)!)
            return
        case .entryEnd:
            guard let index = buffer.readInteger(as: UInt32.self), let sha256 = buffer.readBytes(length: 32) else {
                throw fail("entry end ends early")
            }
            self = .entryEnd(id, index: index, sha256: sha256)
        }
        guard buffer.readableBytes == 0 else { throw fail("\(buffer.readableBytes) bytes after the message") }
    }
}

extension ByteBuffer {
    /// A UTF-8 text field: a 16-bit length, then at most 4096 bytes, cut at a character boundary.
    mutating func writeTransferString(_ text: String) {
        let bytes = WireText.utf8Prefix(of: text, maximumBytes: 4096)
        writeInteger(UInt16(bytes.count))
        writeBytes(bytes)
    }

    mutating func readTransferString() throws -> String {
        guard let length = readInteger(as: UInt16.self), let bytes = readBytes(length: Int(length)),
            let text = String(validating: bytes, as: UTF8.self)
        else { throw PeerWireError.malformedMessage("transfer: bad text field") }
        return text
    }
}

extension TransferMessage {
    /// The transfer an answer or a piece of data belongs to; `nil` for offers, which start one.
    public var transferID: TransferID? {
        switch self {
        case .offer, .directoryOffer: nil
        case .accept(let id, _), .decline(let id, _), .chunk(let id, _, _), .end(let id, _), .result(let id, _, _),
            .cancel(let id, _), .directoryAccept(let id, _), .entryChunk(let id, _, _, _), .entryEnd(let id, _, _):
            id
        }
    }
}
