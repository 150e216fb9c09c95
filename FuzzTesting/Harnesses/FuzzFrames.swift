import HuddleWire
import NIOCore

/// Any bytes → the peer frame reader, as a connection would feed it: frames are taken one by one while whole
/// ones are buffered. A frame is never longer than the limit, and the reader never consumes a partial frame.
public func fuzzFrames(_ input: UnsafeRawBufferPointer) throws(FuzzInvariantViolation) {
    var buffer = ByteBuffer(bytes: input)
    let limit = 4 * 1024
    while true {
        let before = buffer.readerIndex
        let frame: PeerFrame?
        do {
            frame = try PeerFrameDecoder.readFrame(from: &buffer, maximumPayload: limit)
        } catch {
            try require(buffer.readerIndex == before, "a rejected frame consumed bytes")
            return
        }
        guard let frame else {
            try require(buffer.readerIndex == before, "an incomplete frame consumed bytes")
            return
        }
        try require(frame.payload.readableBytes <= limit, "a frame over the limit was accepted")
        try require(
            buffer.readerIndex == before + PeerFrame.headerSize + frame.payload.readableBytes,
            "a frame consumed other than its header and payload"
        )
    }
}
