import HuddleTestSupport
import Testing

@testable import HuddleQR

/// The PNG writer: checksums, chunks, the zlib stream of stored blocks, and the pixels.
@Suite("PNG output")
struct PNGTests {
    struct Chunk {
        let type: String
        let data: [UInt8]
        let storedCRC: UInt32
    }

    struct Malformed: Error { let reason: String }

    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Splits a PNG file after its signature into chunks.
    static func chunks(of file: [UInt8]) throws -> [Chunk] {
        guard file.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw Malformed(reason: "signature")
        }
        var chunks: [Chunk] = []
        var offset = 8
        while offset < file.count {
            guard offset + 12 <= file.count else { throw Malformed(reason: "chunk header") }
            let length = Int(Self.bigEndian(file[offset..<offset + 4]))
            guard offset + 12 + length <= file.count else { throw Malformed(reason: "chunk length") }
            let type = String(decoding: file[offset + 4..<offset + 8], as: UTF8.self)
            let data = Array(file[offset + 8..<offset + 8 + length])
            let crc = Self.bigEndian(file[offset + 8 + length..<offset + 12 + length])
            chunks.append(Chunk(type: type, data: data, storedCRC: crc))
            offset += 12 + length
        }
        return chunks
    }

    /// Inflates a zlib stream made only of stored blocks, checking every header and the Adler-32.
    static func inflateStored(_ stream: [UInt8]) throws -> (data: [UInt8], blocks: [Int]) {
        guard stream.count >= 6, stream[0] & 0x0F == 8, (Int(stream[0]) << 8 | Int(stream[1])) % 31 == 0,
            stream[1] & 0x20 == 0
        else { throw Malformed(reason: "zlib header") }
        var data: [UInt8] = []
        var blocks: [Int] = []
        var offset = 2
        var final = false
        while !final {
            guard offset + 5 <= stream.count, stream[offset] & 0b110 == 0 else { throw Malformed(reason: "block") }
            final = stream[offset] & 1 == 1
            let length = Int(stream[offset + 1]) | Int(stream[offset + 2]) << 8
            let complement = Int(stream[offset + 3]) | Int(stream[offset + 4]) << 8
            guard length ^ complement == 0xFFFF, offset + 5 + length <= stream.count else {
                throw Malformed(reason: "LEN/NLEN")
            }
            data += stream[offset + 5..<offset + 5 + length]
            blocks.append(length)
            offset += 5 + length
        }
        guard offset + 4 == stream.count, Self.bigEndian(stream[offset...]) == Checksums.adler32(data) else {
            throw Malformed(reason: "Adler-32")
        }
        return (data, blocks)
    }

    @Test func checksumsMatchKnownValues() {
        #expect(Checksums.crc32([]) == 0)
        #expect(Checksums.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Checksums.crc32(Array("IEND".utf8)) == 0xAE42_6082)  // every PNG ends with these bytes
        #expect(Checksums.adler32([]) == 1)
        #expect(Checksums.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        // Long input: the sums are reduced in rounds, which must match reducing after every byte.
        let long = [UInt8](repeating: 0xFF, count: 100_000)
        var (low, high): (UInt32, UInt32) = (1, 0)
        for byte in long {
            low = (low + UInt32(byte)) % 65_521
            high = (high + low) % 65_521
        }
        #expect(Checksums.adler32(long) == high << 16 | low)
    }

    @Test(arguments: [(1, 1), (8, 4), (3, 0)]) func structureAndPixels(scale: Int, quietZone: Int) throws {
        let code = try QRCode(encoding: "huddle:pair?id=abc", errorCorrection: .quartile)
        let file = code.png(scale: scale, quietZone: quietZone)
        let chunks = try Self.chunks(of: file)
        #expect(chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
        for chunk in chunks {
            #expect(Checksums.crc32(Array(chunk.type.utf8) + chunk.data) == chunk.storedCRC, "\(chunk.type)")
        }
        let side = (code.size + 2 * quietZone) * scale
        let header = chunks[0].data
        #expect(header.count == 13)
        #expect(Self.bigEndian(header[0..<4]) == UInt32(side))
        #expect(Self.bigEndian(header[4..<8]) == UInt32(side))
        #expect(Array(header[8...]) == [1, 0, 0, 0, 0])  // 1-bit grayscale, no interlace
        #expect(chunks[2].data.isEmpty)

        let (scanlines, blocks) = try Self.inflateStored(chunks[1].data)
        #expect(blocks.count == 1)
        let rowBytes = (side + 7) / 8
        #expect(scanlines.count == side * (rowBytes + 1))
        for y in 0..<side {
            let row = scanlines[(y * (rowBytes + 1))...]
            #expect(row.first == 0)  // filter type None
            for x in 0..<side {
                let white = (row[row.startIndex + 1 + x / 8] >> (7 - UInt8(x % 8))) & 1 == 1
                let (moduleX, moduleY) = (x / scale - quietZone, y / scale - quietZone)
                let inSymbol = (0..<code.size).contains(moduleX) && (0..<code.size).contains(moduleY)
                let dark = inSymbol && code.isDark(x: moduleX, y: moduleY)
                if white == dark { Issue.record("pixel (\(x), \(y))") }
            }
        }
    }

    /// A version 40 symbol at scale 8 is 1480 pixels square: 275,280 bytes of scanlines in five stored blocks.
    @Test func largeImageUsesSeveralStoredBlocks() throws {
        let code = try QRCode(encoding: [UInt8](repeating: 0x33, count: 2900), errorCorrection: .low)
        #expect(code.version == 40)
        let chunks = try Self.chunks(of: code.png())
        let (scanlines, blocks) = try Self.inflateStored(chunks[1].data)
        #expect(scanlines.count == 1480 * 186)
        #expect(blocks == [65_535, 65_535, 65_535, 65_535, 275_280 - 4 * 65_535])
    }
}

/// The PNG file read by another implementation: python3's zlib (the reference implementation) inflates the image
/// data and agrees with every CRC. Skipped with a message when python3 is missing, except under CI=true.
@Suite(
    "PNG output read by zlib",
    .tags(.real),
    .timeLimit(.minutes(1)),
    .enabled(if: ExternalTool.shouldRun("python3"), "python3 is not installed; with CI=true this test fails instead")
)
struct PNGZlibTests {
    /// A 1200-byte payload at level M: version 29, 1128 pixels square.
    @Test func zlibAcceptsTheImage() async throws {
        let python = try ExternalTool.require("python3", package: "python3")
        let script = """
            import sys, zlib, struct
            data = open(sys.argv[1], 'rb').read()
            assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
            offset, idat = 8, b''
            while offset < len(data):
                length, kind = struct.unpack('>I4s', data[offset:offset + 8])
                body = data[offset + 8:offset + 8 + length]
                crc, = struct.unpack('>I', data[offset + 8 + length:offset + 12 + length])
                assert zlib.crc32(kind + body) == crc, kind
                if kind == b'IHDR': width, height = struct.unpack('>II', body[:8])
                if kind == b'IDAT': idat += body
                offset += 12 + length
            raw = zlib.decompress(idat)
            assert len(raw) == height * (1 + (width + 7) // 8), len(raw)
            print(width, height, len(raw))
            """
        let code = try QRCode(encoding: [UInt8](repeating: 0x7E, count: 1200), errorCorrection: .medium)
        #expect(code.version == 29)
        let result = try await ExternalTool.withTemporaryFile(code.png(), suffix: ".png") { path in
            try await ExternalTool.run(python, ["-c", script, path])
        }
        let side = (code.size + 8) * 8
        #expect(result.status == 0)
        #expect(String(decoding: result.output, as: UTF8.self) == "\(side) \(side) \(side * (1 + (side + 7) / 8))\n")
    }
}
