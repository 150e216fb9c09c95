import HuddleTestSupport
import Testing

@testable import HuddleQR

/// Real decoding: the PNG files go to zbar (`zbarimg`, Debian's zbar-tools), an independent QR decoder, which must
/// read back exactly the bytes encoded. Skipped with a message when zbarimg is missing, except under CI=true, where
/// the tests fail instead.
@Suite(
    "Decoding by zbar",
    .tags(.real),
    .timeLimit(.minutes(3)),
    .enabled(
        if: ExternalTool.shouldRun("zbarimg"),
        "zbarimg is not installed (apt-get install zbar-tools); with CI=true these tests fail instead"
    )
)
struct ZbarDecodingTests {
    /// The decoded bytes of the one QR code in `png`: QR codes only (no false finds among the 1D symbologies),
    /// `-Sbinary` so that the bytes come out as they are, without a charset guess or a newline.
    static func decode(_ png: [UInt8]) async throws -> [UInt8] {
        let zbarimg = try ExternalTool.require("zbarimg", package: "zbar-tools")
        let result = try await ExternalTool.withTemporaryFile(png, suffix: ".png") { path in
            try await ExternalTool.run(
                zbarimg,
                ["--nodbus", "--raw", "-q", "-Sdisable", "-Sqrcode.enable", "-Sbinary", path]
            )
        }
        #expect(result.status == 0, "zbarimg exit status")
        return result.output
    }

    enum PayloadKind: String, CaseIterable, Sendable {
        /// A pairing link's characters.
        case ascii
        /// UTF-8 text with two-, three- and four-byte characters (cut at a byte count, so maybe mid-character).
        case utf8
        /// Every byte value, 0x00 and 0xFF included.
        case binary
    }

    static func payload(_ kind: PayloadKind, count: Int) -> [UInt8] {
        let unit: [UInt8]
        switch kind {
        case .ascii: unit = Array("huddle:pair?id=Xk3v9QmZp2&name=Alice%20laptop&port=52000&".utf8)
        case .utf8: unit = Array("Grüße aus Zürich, 東京の友達へ 😀 Ωmega ".utf8)
        case .binary: unit = (0...255).map { UInt8(($0 * 167 + 13) % 256) }
        }
        return (0..<count).map { unit[$0 % unit.count] }
    }

    @Test(arguments: [1, 14, 15, 100, 250, 1000], PayloadKind.allCases)
    func payloadsAtEveryLevel(length: Int, kind: PayloadKind) async throws {
        let payload = Self.payload(kind, count: length)
        for level in QRCode.ErrorCorrectionLevel.allCases {
            let code = try QRCode(encoding: payload, errorCorrection: level)
            #expect(try await Self.decode(code.png(scale: 4)) == payload, "\(length) \(kind) bytes at \(level)")
        }
    }

    /// Every mask pattern, forced, decodes (the encoder alone would pick only some of them).
    @Test(arguments: 0...7) func everyMask(mask: Int) async throws {
        let payload = Self.payload(.ascii, count: 120)
        let code = try QRCode(encoding: payload, errorCorrection: .quartile, version: nil, mask: mask)
        #expect(code.mask == mask)
        #expect(try await Self.decode(code.png(scale: 4)) == payload)
    }

    /// Every version at every level, filled to capacity: each row of the block tables (Table 9), the alignment
    /// patterns (Annex E) and the version information (7.10) are read by another implementation. The mask is
    /// given (each of the eight in turn) rather than chosen: scoring all eight for 160 symbols of up to 177 × 177
    /// modules was most of the unit suite's time in a debug build, and the choice is tested on its own.
    @Test(arguments: 1...40) func everyVersionFull(version: Int) async throws {
        for (index, level) in QRCode.ErrorCorrectionLevel.allCases.enumerated() {
            let capacity = QRBlockLayout(version: version, errorCorrection: level).byteCapacity
            let payload = Self.payload(.binary, count: capacity)
            let mask = (version + index) % 8
            let code = try QRCode(encoding: payload, errorCorrection: level, version: version, mask: mask)
            #expect(code.mask == mask)
            #expect(try await Self.decode(code.png(scale: 3)) == payload, "version \(version) at \(level)")
        }
    }

    /// The terminal rendering, drawn as an image the way the terminal it is meant for shows it, decodes too: by
    /// default a light-on-dark terminal (ink light, the screen round the text dark), inverted a dark-on-light one.
    /// Only the quiet zone the text itself draws (2 modules) separates the symbol from the screen round it.
    @Test(arguments: [false, true]) func terminalRenderingAsSeen(inverted: Bool) async throws {
        let link = "huddle:pair?id=Xk3v9QmZp2LrT8wYb6NcA1sD4fG7hJ0uE5iO&name=Alice%20laptop&addr=10.0.0.7:52000"
        let code = try QRCode(encoding: link)
        let lines = code.terminalText(inverted: inverted).split(separator: "\n").map { Array($0.unicodeScalars) }
        // Ink is the foreground colour: light on a dark terminal, dark on a light one. Round the text (a margin
        // of 4 cells) is the screen's background colour.
        let inkIsDark = inverted
        let margin = 4
        let width = lines[0].count + 2 * margin
        let height = 2 * lines.count + 2 * margin
        func dark(_ x: Int, _ y: Int) -> Bool {
            let (column, row) = (x - margin, y - margin)
            guard (0..<lines[0].count).contains(column), (0..<2 * lines.count).contains(row) else {
                return !inkIsDark  // the terminal's background
            }
            let scalar = lines[row / 2][column]
            let ink = scalar == "\u{2588}" || (row % 2 == 0 ? scalar == "\u{2580}" : scalar == "\u{2584}")
            return ink == inkIsDark
        }
        let scale = 6
        let image = PNGWriter.grayscaleOneBit(width: width * scale, height: height * scale) { x, y in
            !dark(x / scale, y / scale)
        }
        #expect(try await Self.decode(image) == Array(link.utf8))
    }
}
