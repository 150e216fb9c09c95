/// A minimal PNG encoder (ISO/IEC 15948:2004, the PNG specification): one IHDR, one IDAT and IEND, with the image
/// data in a zlib stream (RFC 1950) of stored, uncompressed deflate blocks (RFC 1951, 3.2.4).
enum PNGWriter {
    /// The eight bytes every PNG file starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The most one stored deflate block holds: its length is a 16-bit field.
    static let maximumStoredBlockLength = 65_535

    /// A 1-bit grayscale image (colour type 0, bit depth 1, no interlace), `isWhite(x, y)` choosing each pixel.
    static func grayscaleOneBit(width: Int, height: Int, isWhite: (Int, Int) -> Bool) -> [UInt8] {
        precondition(width >= 1 && height >= 1 && width <= Int(Int32.max) && height <= Int(Int32.max))
        // Each scanline: filter type 0 (None), then 8 pixels to a byte, the first in the most significant bit.
        let bytesPerRow = (width + 7) / 8
        var scanlines: [UInt8] = []
        scanlines.reserveCapacity((bytesPerRow + 1) * height)
        for y in 0..<height {
            scanlines.append(0)
            var byte: UInt8 = 0
            for x in 0..<width {
                if isWhite(x, y) { byte |= 0x80 >> UInt8(x % 8) }
                if x % 8 == 7 || x == width - 1 {
                    scanlines.append(byte)
                    byte = 0
                }
            }
        }
        var header: [UInt8] = []
        header += bigEndian(UInt32(width))
        header += bigEndian(UInt32(height))
        header += [1, 0, 0, 0, 0]  // bit depth 1, colour type 0 (grayscale), deflate, adaptive filters, no interlace
        var file = Self.signature
        file += Self.chunk("IHDR", header)
        file += Self.chunk("IDAT", Self.zlibStored(scanlines))
        file += Self.chunk("IEND", [])
        return file
    }

    /// A chunk: its data length, its four-letter type, the data, and the CRC-32 of type and data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        precondition(typeBytes.count == 4, "chunk types are four letters")
        return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(Checksums.crc32(typeBytes + data))
    }

    /// A zlib stream holding `data` in stored deflate blocks: the header 0x78 0x01 (deflate, 32 KiB window, no
    /// preset dictionary, check bits making it a multiple of 31), the blocks, then the Adler-32 of `data`.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var stream: [UInt8] = [0x78, 0x01]
        stream.reserveCapacity(data.count + data.count / Self.maximumStoredBlockLength * 5 + 11)
        var start = 0
        repeat {
            let end = min(start + Self.maximumStoredBlockLength, data.count)
            let length = UInt16(end - start)
            // BFINAL in bit 0, BTYPE 00 (stored) in bits 1–2; the rest of the byte is padding.
            stream.append(end == data.count ? 1 : 0)
            stream += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            stream += data[start..<end]
            start = end
        } while start < data.count
        return stream + bigEndian(Checksums.adler32(data))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}

/// The two checksums a PNG file carries.
enum Checksums {
    /// CRC-32 as PNG (and zlib, gzip, Ethernet) use it: polynomial 0x04C11DB7 reflected (0xEDB88320), initial
    /// value and final XOR 0xFFFFFFFF (PNG specification, Annex D).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = Self.crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// Adler-32 (RFC 1950, 8.2): two sums modulo 65521, the second in the high half.
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var low: UInt32 = 1
        var high: UInt32 = 0
        // 5552 bytes is the most that can be summed before `high` could overflow 32 bits (zlib's NMAX).
        var start = 0
        while start < bytes.count {
            let end = min(start + 5552, bytes.count)
            for byte in bytes[start..<end] {
                low += UInt32(byte)
                high += low
            }
            low %= 65_521
            high %= 65_521
            start = end
        }
        return high << 16 | low
    }
}
