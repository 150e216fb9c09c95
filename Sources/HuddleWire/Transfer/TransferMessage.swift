public import NIOCore

/// Identifies one transfer: 16 random bytes chosen by the sender.
public struct TransferID: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        precondition(bytes.count == 16, "a transfer ID is 16 bytes")
        self.bytes = bytes
    }

    public var description: String { bytes.prefix(4).map { String($0, radix: 16) }.joined() }
}

/// What a sender proposes: one file, its size and its SHA-256.
public struct TransferOffer: Hashable, Sendable {
    public var id: TransferID
    /// The file name as the sender gave it; untrusted (``TransferName`` decides what may be written).
    public var name: String
    public var size: UInt64
    public var sha256: [UInt8]
    /// A MIME type, or empty.
    public var type: String

    public init(id: TransferID, name: String, size: UInt64, sha256: [UInt8], type: String = "") {
        self.id = id
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.type = type
    }
}

/// The messages of the resource stream (stream 2): a transfer is OFFER → ACCEPT(offset) or DECLINE → CHUNK… →
/// END → RESULT; either side may CANCEL. ACCEPT's offset is where a kept partial file ends, so an interrupted
/// transfer of the same content continues instead of starting over.
///
/// A directory is DIRECTORY-OFFER (the whole manifest) → DIRECTORY-ACCEPT (the files still needed, each with its
/// resume offset) or DECLINE → ENTRY-CHUNK… (file by file, in the order accepted) → END → RESULT: one answer for
/// the whole tree, so many small files cost no round trip each.
public enum TransferMessage: Hashable, Sendable {
    case offer(TransferOffer)
    case accept(TransferID, offset: UInt64)
    case decline(TransferID, reason: String)
    /// Bytes of the file from `offset`.
    case chunk(TransferID, offset: UInt64, data: ByteBuffer)
    case end(TransferID)
    /// The receiver's verdict after checking size and SHA-256.
    case result(TransferID, ok: Bool, reason: String)
    case cancel(TransferID, reason: String)
    /// A directory and its manifest.
    case directoryOffer(DirectoryOffer)
    /// The files of a directory offer the receiver still needs; those not listed it has, verified.
    case directoryAccept(TransferID, needed: [TransferResumePoint])
    /// Bytes of the file at `index` of a directory offer's entries, from `offset`.
    case entryChunk(TransferID, index: UInt32, offset: UInt64, data: ByteBuffer)

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
    }

    public var id: TransferID {
        switch self {
        case .offer(let offer): offer.id
        case .directoryOffer(let offer): offer.id
        case .directoryAccept(let id, _), .entryChunk(let id, _, _, _): id
        case .accept(let id, _), .decline(let id, _), .chunk(let id, _, _), .end(let id), .result(let id, _, _),
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
            buffer.writeBytes(offer.sha256)
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
            buffer.writeInteger(Tag.chunk.rawValue)
            buffer.writeBytes(id.bytes)
            buffer.writeInteger(offset)
            buffer.writeBuffer(&data)
        case .end(let id):
            buffer.writeInteger(Tag.end.rawValue)
            buffer.writeBytes(id.bytes)
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
            buffer.writeInteger(Tag.entryChunk.rawValue)
            buffer.writeBytes(id.bytes)
            buffer.writeInteger(index)
            buffer.writeInteger(offset)
            buffer.writeBuffer(&data)
        }
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
            guard let size = buffer.readInteger(as: UInt64.self), let hash = buffer.readBytes(length: 32) else {
                throw fail("offer ends early")
            }
            let name = try buffer.readTransferString()
            let type = try buffer.readTransferString()
            self = .offer(TransferOffer(id: id, name: name, size: size, sha256: hash, type: type))
        case .accept:
            guard let offset = buffer.readInteger(as: UInt64.self) else { throw fail("accept ends early") }
            self = .accept(id, offset: offset)
        case .decline: self = .decline(id, reason: try buffer.readTransferString())
        case .cancel: self = .cancel(id, reason: try buffer.readTransferString())
        case .chunk:
            guard let offset = buffer.readInteger(as: UInt64.self) else { throw fail("chunk ends early") }
            self = .chunk(id, offset: offset, data: buffer.readSlice(length: buffer.readableBytes)!)
            return
        case .end: self = .end(id)
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
        }
        guard buffer.readableBytes == 0 else { throw fail("\(buffer.readableBytes) bytes after the message") }
    }
}

extension ByteBuffer {
    /// A UTF-8 text field: a 16-bit length, then at most 4096 bytes.
    mutating func writeTransferString(_ text: String) {
        let bytes = Array(text.utf8.prefix(4096))
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
