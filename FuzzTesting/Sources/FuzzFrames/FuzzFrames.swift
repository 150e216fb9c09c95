import HuddleWire
import NIOCore

/// Any bytes → the peer frame reader, as a connection would feed it: frames are taken one by one while whole
/// ones are buffered. A frame is never longer than the limit, and the reader never consumes a partial frame.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var buffer = ByteBuffer(bytes: UnsafeRawBufferPointer(start: start, count: count))
    let limit = 4 * 1024
    while true {
        let before = buffer.readerIndex
        let frame: PeerFrame?
        do {
            frame = try PeerFrameDecoder.readFrame(from: &buffer, maximumPayload: limit)
        } catch {
            precondition(buffer.readerIndex == before, "a rejected frame consumed bytes")
            return 0
        }
        guard let frame else {
            precondition(buffer.readerIndex == before, "an incomplete frame consumed bytes")
            return 0
        }
        precondition(frame.payload.readableBytes <= limit, "a frame over the limit was accepted")
        precondition(buffer.readerIndex == before + PeerFrame.headerSize + frame.payload.readableBytes)
    }
}
