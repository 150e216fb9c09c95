import HuddleWire
import NIOCore
import NIOEmbedded
import Testing

@Suite("Peer frame codec")
struct PeerFrameCodecTests {
    func encoded(_ frame: PeerFrame) -> ByteBuffer {
        var buffer = ByteBuffer()
        PeerFrameEncoder.write(frame, to: &buffer)
        return buffer
    }

    @Test func headerLayoutIsExact() {
        let frame = PeerFrame(
            kind: .data,
            flags: .endOfMessage,
            streamID: 0x0102_0304,
            payload: ByteBuffer(bytes: [0xAA, 0xBB])
        )
        #expect(Array(encoded(frame).readableBytesView) == [1, 1, 1, 0, 1, 2, 3, 4, 0, 0, 0, 2, 0xAA, 0xBB])
    }

    @Test func framesSplitAtEveryByteDecodeTheSame() throws {
        let frames = [
            PeerFrame(kind: .control, streamID: 0, payload: ByteBuffer(bytes: [7, 0, 0, 0, 0, 0, 0, 0, 9])),
            PeerFrame(kind: .data, streamID: 1, payload: ByteBuffer()),
            PeerFrame(kind: .data, flags: .endOfMessage, streamID: 1, payload: ByteBuffer(repeating: 0x5A, count: 300)),
        ]
        var all = ByteBuffer()
        for frame in frames { PeerFrameEncoder.write(frame, to: &all) }
        for split in 0...all.readableBytes {
            let channel = EmbeddedChannel(handler: ByteToMessageHandler(PeerFrameDecoder()))
            try channel.writeInbound(all.getSlice(at: 0, length: split)!)
            try channel.writeInbound(all.getSlice(at: split, length: all.readableBytes - split)!)
            var decoded: [PeerFrame] = []
            while let frame = try channel.readInbound(as: PeerFrame.self) { decoded.append(frame) }
            #expect(decoded == frames, "split at \(split)")
            #expect(try channel.finish().isClean)
        }
    }

    @Test func oversizedDeclarationFailsBeforeThePayloadArrives() throws {
        var header = ByteBuffer(bytes: [1, 1, 0, 0, 0, 0, 0, 1])
        header.writeInteger(UInt32.max)
        var copy = header
        #expect(throws: PeerWireError.frameTooLarge(limit: 65536, declared: Int(UInt32.max))) {
            _ = try PeerFrameDecoder.readFrame(from: &copy, maximumPayload: 65536)
        }
        var justOver = ByteBuffer(bytes: [1, 1, 0, 0, 0, 0, 0, 1])
        justOver.writeInteger(UInt32(65537))
        #expect(throws: PeerWireError.frameTooLarge(limit: 65536, declared: 65537)) {
            _ = try PeerFrameDecoder.readFrame(from: &justOver, maximumPayload: 65536)
        }
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(PeerFrameDecoder()))
        #expect(throws: PeerWireError.frameTooLarge(limit: 65536, declared: Int(UInt32.max))) {
            try channel.writeInbound(header)
        }
    }

    @Test func unknownVersionIsRefused() {
        var buffer = ByteBuffer(bytes: [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(throws: PeerWireError.unsupportedFrameVersion(2)) {
            _ = try PeerFrameDecoder.readFrame(from: &buffer, maximumPayload: 100)
        }
    }

    @Test func truncatedFrameAtEndOfStreamIsAnErrorAndNothingIsDelivered() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(PeerFrameDecoder()))
        var partial = encoded(PeerFrame(kind: .data, streamID: 1, payload: ByteBuffer(repeating: 1, count: 50)))
        partial.moveWriterIndex(to: partial.writerIndex - 10)
        try channel.writeInbound(partial)
        #expect(try channel.readInbound(as: PeerFrame.self) == nil)
        #expect(throws: PeerWireError.truncatedFrame) { try channel.finish() }
    }
}
