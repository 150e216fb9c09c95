import HuddleWire
import NIOCore
import Testing

@testable import HuddleTransport

@Suite("The datagram filter: unknown links dropped, a new link's first packets kept")
struct DatagramFilterTests {
    static let source = try! SocketAddress(ipAddress: "127.0.0.1", port: 4000)
    static let start = NIODeadline.uptimeNanoseconds(10_000_000_000)

    /// A packet long enough to carry a header, addressed to `id`, its first payload byte `mark`.
    static func packet(to id: UInt64, mark: UInt8 = 0) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt8(1))
        buffer.writeInteger(UInt8(0))
        buffer.writeInteger(id)
        buffer.writeBytes([UInt8](repeating: mark, count: 40))  // beyond any header and tag
        return buffer
    }

    @Test func packetsSentBeforeTheLinkAppearsAreHandedOverInOrder() {
        let filter = DatagramFilter()
        let id = DatagramConnectionID(rawValue: 77)
        #expect(!filter.admits(Self.packet(to: 77, mark: 1), from: Self.source, now: Self.start))
        #expect(!filter.admits(Self.packet(to: 77, mark: 2), from: Self.source, now: Self.start + .milliseconds(5)))
        let early = filter.allow(id, now: Self.start + .milliseconds(300))
        #expect(early.map { $0.bytes[10] } == [1, 2])
        #expect(early.allSatisfy { $0.source == Self.source })
        #expect(filter.heldCount == 0)
        #expect(filter.admits(Self.packet(to: 77), from: Self.source, now: Self.start + .seconds(1)))
        #expect(filter.dropped == 2)
    }

    @Test func heldPacketsExpireAndAFloodIsHeldAtMostEightASecond() {
        let filter = DatagramFilter()
        for index in 0..<1000 {
            let at = Self.start + .microseconds(Int64(index))
            #expect(!filter.admits(Self.packet(to: UInt64(index)), from: Self.source, now: at))
        }
        #expect(filter.heldCount == DatagramFilter.maximumHeld)
        #expect(filter.dropped == 1000)
        // Past the hold time nothing stale is handed over, and stale packets make room for new ones.
        let later = Self.start + .seconds(3)
        #expect(filter.allow(DatagramConnectionID(rawValue: 3), now: later).isEmpty)
        #expect(filter.heldCount == DatagramFilter.maximumHeld - 1)
        #expect(!filter.admits(Self.packet(to: 5000, mark: 9), from: Self.source, now: later))
        #expect(!filter.admits(Self.packet(to: 5001, mark: 8), from: Self.source, now: later))
        #expect(filter.heldCount == 2)
        #expect(filter.allow(DatagramConnectionID(rawValue: 5000), now: later).map { $0.bytes[10] } == [9])
        // Too short to name a link: dropped, never held.
        #expect(!filter.admits(ByteBuffer(bytes: [1, 2, 3]), from: Self.source, now: later))
        #expect(filter.heldCount == 1)
    }
}
