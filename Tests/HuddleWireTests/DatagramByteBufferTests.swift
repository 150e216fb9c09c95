import NIOCore
import Testing

@testable import HuddleWire

/// The `ByteBuffer` entry points give the same bytes and the same drops as the `[UInt8]` ones.
@Suite("Datagram ByteBuffer entry points")
struct DatagramByteBufferTests {
    private let allocator = ByteBufferAllocator()

    /// `bytes` behind a 5-byte prefix that has already been read, so the reader index is not 0.
    private func buffer(_ bytes: [UInt8]) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: bytes.count + 5)
        buffer.writeBytes([9, 9, 9, 9, 9] + bytes)
        buffer.moveReaderIndex(forwardBy: 5)
        return buffer
    }

    @Test("Sealing a ByteBuffer gives the known-answer packet")
    func sealBuffer() throws {
        var sealer = DatagramSealer(keys: try DatagramFixture.schedule().keys(for: .initiator))
        let packet = try sealer.seal(buffer(Array("huddle datagram".utf8)), allocator: allocator)
        #expect(Array(packet.readableBytesView) == hex(DatagramFixture.packetI2R0))
        #expect(throws: PeerWireError.datagramTooLarge(limit: 1200, size: 1201)) {
            try sealer.seal(buffer(Array(repeating: 0, count: 1201)), allocator: allocator)
        }
    }

    @Test("The destination connection ID is read in place")
    func destination() {
        let packet = hex(DatagramFixture.packetI2R0)
        #expect(DatagramConnectionID(destinationOf: buffer(packet))?.bytes == hex(DatagramFixture.cidR))
        #expect(DatagramConnectionID(destinationOf: packet)?.rawValue == 0xA810_06FF_01DC_51E2)
        #expect(DatagramConnectionID(destinationOf: buffer(Array(packet.prefix(33)))) == nil)
        #expect(DatagramConnectionID(destinationOf: Array(packet.prefix(33))) == nil)
    }

    @Test("Opening a ByteBuffer delivers, de-duplicates and drops like the array path")
    func openBuffer() throws {
        let schedule = try DatagramFixture.schedule()
        var opener = DatagramOpener(keys: schedule.keys(for: .responder))
        let packet = hex(DatagramFixture.packetI2R0)
        #expect(opener.open(buffer(packet), now: .zero) == .delivered(Array("huddle datagram".utf8)))
        #expect(opener.open(buffer(packet), now: .zero) == .dropped(.duplicate))
        #expect(opener.open(buffer(Array(packet.prefix(33))), now: .zero) == .dropped(.malformed))
        #expect(opener.open(buffer(hex(DatagramFixture.packetR2I0)), now: .zero) == .dropped(.unknownConnectionID))
        var version2 = packet
        version2[0] = 2
        #expect(opener.open(buffer(version2), now: .zero) == .dropped(.unsupportedVersion))
        var forged = hex(DatagramFixture.packetI2R1Empty)
        forged[20] ^= 1
        #expect(opener.open(buffer(forged), now: .zero) == .dropped(.authenticationFailed))
        #expect(opener.open(buffer(hex(DatagramFixture.packetI2R1Empty)), now: .zero) == .delivered([]))

        var expected = DatagramCounters()
        expected.delivered = 2
        expected.replayDropped = 1
        expected.malformed = 2
        expected.unknownConnectionID = 1
        expected.authFailures = 1
        #expect(opener.counters == expected)
    }
}
