import HuddleWire
import NIOCore
import Testing

@Suite("File transfer messages: OFFER with a resume key, END with the SHA-256")
struct FileTransferMessageTests {
    static let id = TransferID(bytes: Array(0..<16))

    func encoded(_ message: TransferMessage) -> [UInt8] {
        var buffer = ByteBuffer()
        message.encode(into: &buffer)
        return Array(buffer.readableBytesView)
    }

    @Test func anOfferHasTheDocumentedLayoutAndRoundTrips() throws {
        let offer = TransferOffer(id: Self.id, name: "a", size: 5, resumeKey: Array(repeating: 0xAB, count: 32))
        let bytes = encoded(.offer(offer))
        #expect(bytes[0] == 1)  // tag
        #expect(Array(bytes[1..<17]) == Array(0..<16))  // transfer ID
        #expect(Array(bytes[17..<25]) == [0, 0, 0, 0, 0, 0, 0, 5])  // size
        #expect(Array(bytes[25..<57]) == Array(repeating: 0xAB, count: 32))  // resume key
        #expect(Array(bytes[57...]) == [0, 1, UInt8(ascii: "a"), 0, 0])  // name, empty type
        #expect(try TransferMessage(decoding: ByteBuffer(bytes: bytes)) == .offer(offer))
    }

    @Test func endCarriesTheSHA256OfAFileAndNothingForADirectory() throws {
        let digest = Array(UInt8(100)..<132)
        let file = encoded(.end(Self.id, sha256: digest))
        #expect(file == [5] + Array(0..<16) + digest)
        #expect(try TransferMessage(decoding: ByteBuffer(bytes: file)) == .end(Self.id, sha256: digest))
        let directory = encoded(.end(Self.id, sha256: nil))
        #expect(directory == [5] + Array(0..<16))
        #expect(try TransferMessage(decoding: ByteBuffer(bytes: directory)) == .end(Self.id, sha256: nil))
    }

    @Test func chunkHeadersFollowedByDataEncodeLikeTheWholeMessages() {
        let data: [UInt8] = [9, 8, 7]
        var chunk = ByteBuffer()
        TransferMessage.writeChunkHeader(Self.id, offset: 0x0102, into: &chunk)
        #expect(chunk.readableBytes == TransferMessage.chunkHeaderSize)
        chunk.writeBytes(data)
        #expect(
            Array(chunk.readableBytesView) == encoded(.chunk(Self.id, offset: 0x0102, data: ByteBuffer(bytes: data)))
        )
        var entry = ByteBuffer()
        TransferMessage.writeEntryChunkHeader(Self.id, index: 3, offset: 0x0102, into: &entry)
        #expect(entry.readableBytes == TransferMessage.entryChunkHeaderSize)
        entry.writeBytes(data)
        let whole = encoded(.entryChunk(Self.id, index: 3, offset: 0x0102, data: ByteBuffer(bytes: data)))
        #expect(Array(entry.readableBytesView) == whole)
        #expect(whole == [10] + Array(0..<16) + [0, 0, 0, 3] + [0, 0, 0, 0, 0, 0, 1, 2] + data)
    }

    @Test(arguments: [1, 31, 33, 64])
    func anEndWithACutOrLongDigestIsMalformed(length: Int) {
        let bytes = [5] + Array(0..<16) + Array(repeating: UInt8(7), count: length)
        #expect(throws: PeerWireError.self) { try TransferMessage(decoding: ByteBuffer(bytes: bytes)) }
    }
}
