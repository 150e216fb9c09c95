import HuddleWire
import NIOCore
import Testing

@Suite("Directory offers: manifest encoding and hostile manifests")
struct DirectoryOfferTests {
    static let id = TransferID(bytes: Array(0..<16))

    static func file(_ path: String, _ size: UInt64 = 10, fill: UInt8 = 1) -> DirectoryEntry {
        DirectoryEntry(path: path, kind: .file(size: size, key: Array(repeating: fill, count: 32)))
    }

    static func directory(_ path: String) -> DirectoryEntry { DirectoryEntry(path: path, kind: .directory) }

    static let photos = DirectoryOffer(
        id: id,
        name: "photos",
        type: "inode/directory",
        entries: [
            directory("2024"), file("2024/a.png", 1234, fill: 2), directory("2024/empty"), file("notes.txt", 0),
            file("Ünïcode name (1).txt", 5),
        ]
    )

    func roundTrip(_ message: TransferMessage) throws -> (TransferMessage, [UInt8]) {
        var buffer = ByteBuffer()
        message.encode(into: &buffer)
        let bytes = Array(buffer.readableBytesView)
        return (try TransferMessage(decoding: buffer), bytes)
    }

    @Test func aDirectoryOfferRoundTripsToTheSameBytes() throws {
        let (decoded, bytes) = try roundTrip(.directoryOffer(Self.photos))
        #expect(decoded == .directoryOffer(Self.photos))
        var again = ByteBuffer()
        decoded.encode(into: &again)
        #expect(Array(again.readableBytesView) == bytes)
        #expect(Self.photos.totalSize == 1234 + 0 + 5)
        #expect(Self.photos.fileCount == 3)
    }

    @Test func theOfferHasTheDocumentedLayout() throws {
        let offer = DirectoryOffer(id: Self.id, name: "d", entries: [Self.directory("x"), Self.file("x/y", 7)])
        var buffer = ByteBuffer()
        TransferMessage.directoryOffer(offer).encode(into: &buffer)
        let bytes = Array(buffer.readableBytesView)
        #expect(bytes[0] == 8)  // tag
        #expect(Array(bytes[1..<17]) == Array(0..<16))  // transfer ID
        #expect(Array(bytes[17..<20]) == [0, 1, UInt8(ascii: "d")])  // name
        #expect(Array(bytes[20..<22]) == [0, 0])  // empty type
        #expect(Array(bytes[22..<26]) == [0, 0, 0, 2])  // entry count
        #expect(Array(bytes[26..<30]) == [2, 0, 1, UInt8(ascii: "x")])  // a directory: kind, path
        #expect(Array(bytes[30..<36]) == [1, 0, 3] + Array("x/y".utf8))  // a file: kind, path, …
        #expect(Array(bytes[36..<44]) == [0, 0, 0, 0, 0, 0, 0, 7])  // … size, …
        #expect(bytes.count == 44 + 32)  // … resume key
    }

    @Test func acceptsAndEntryChunksRoundTrip() throws {
        let accept = TransferMessage.directoryAccept(
            Self.id,
            needed: [TransferResumePoint(index: 1, offset: 0), TransferResumePoint(index: 4, offset: 3)]
        )
        #expect(try roundTrip(accept).0 == accept)
        #expect(try roundTrip(.directoryAccept(Self.id, needed: [])).0 == .directoryAccept(Self.id, needed: []))
        let chunk = TransferMessage.entryChunk(Self.id, index: 9, offset: 1 << 33, data: ByteBuffer(bytes: [1, 2, 3]))
        let (decoded, bytes) = try roundTrip(chunk)
        #expect(decoded == chunk)
        #expect(bytes.count == 1 + 16 + 4 + 8 + 3)
    }

    @Test func anEntryEndCarriesTheFilesSHA256AndACutOneIsMalformed() throws {
        let digest = Array(UInt8(100)..<132)
        let end = TransferMessage.entryEnd(Self.id, index: 3, sha256: digest)
        let (decoded, bytes) = try roundTrip(end)
        #expect(decoded == end)
        #expect(bytes == [11] + Array(0..<16) + [0, 0, 0, 3] + digest)
        for cut in [Array(bytes.dropLast(1)), Array(bytes.dropLast(32)), bytes + [0]] {
            #expect(throws: PeerWireError.self) { try TransferMessage(decoding: ByteBuffer(bytes: cut)) }
        }
    }

    @Test func aWellFormedManifestPasses() throws {
        try Self.photos.validate()
    }

    @Test(arguments: [
        ("../evil", DirectoryManifestError.badPath("../evil", .dotName)),
        ("a/../../evil", .badPath("a/../../evil", .dotName)),
        ("/etc/passwd", .absolutePath("/etc/passwd")),
        ("a//b", .badPath("a//b", .empty)),
        ("a/", .badPath("a/", .empty)),
        ("./a", .badPath("./a", .dotName)),
        ("a\\..\\b", .badPath("a\\..\\b", .separator)),
        ("bell\u{7}", .badPath("bell\u{7}", .controlCharacter)),
        ("new\nline/x", .badPath("new\nline/x", .controlCharacter)),
        ("gnp.\u{202E}exe", .badPath("gnp.\u{202E}exe", .controlCharacter)),
        ("dir/CON.txt", .badPath("dir/CON.txt", .deviceName)),
        ("nul", .badPath("nul", .deviceName)),
    ])
    func aHostilePathIsRefusedWithItsReason(_ path: String, _ expected: DirectoryManifestError) {
        let offer = DirectoryOffer(id: Self.id, name: "d", entries: [Self.file("fine.txt"), Self.file(path)])
        #expect(throws: expected) { try offer.validate() }
    }

    @Test func duplicatePathsAreRefusedAlsoWhenOnlyTheCaseDiffers() {
        for second in ["a/b.txt", "A/B.TXT"] {
            let offer = DirectoryOffer(
                id: Self.id,
                name: "d",
                entries: [Self.directory("a"), Self.file("a/b.txt"), Self.file(second)]
            )
            #expect(throws: DirectoryManifestError.duplicatePath(second)) { try offer.validate() }
        }
        let fileAndDirectory = DirectoryOffer(id: Self.id, name: "d", entries: [Self.file("x"), Self.directory("x")])
        #expect(throws: DirectoryManifestError.duplicatePath("x")) { try fileAndDirectory.validate() }
    }

    @Test func nothingMayLieBelowAFileInEitherOrder() {
        let after = DirectoryOffer(id: Self.id, name: "d", entries: [Self.file("x"), Self.file("x/y")])
        #expect(throws: DirectoryManifestError.parentIsFile("x/y")) { try after.validate() }
        let before = DirectoryOffer(id: Self.id, name: "d", entries: [Self.file("x/y/z"), Self.file("x")])
        #expect(throws: DirectoryManifestError.parentIsFile("x/y/z")) { try before.validate() }
    }

    @Test func theDirectoryNameItselfIsChecked() {
        for name in ["..", "a/b", "", "COM1"] {
            let offer = DirectoryOffer(id: Self.id, name: name, entries: [])
            #expect(throws: TransferNameError.self) { try offer.validate() }
        }
    }

    @Test func limitsOnEntriesSizeDepthAndPathLength() {
        var limits = DirectoryManifestLimits()
        limits.maximumEntries = 3
        let many = DirectoryOffer(id: Self.id, name: "d", entries: (0..<4).map { Self.file("f\($0)") })
        #expect(throws: DirectoryManifestError.tooManyEntries(4, limit: 3)) { try many.validate(limits: limits) }

        limits = DirectoryManifestLimits()
        limits.maximumManifestBytes = 1000
        let big = DirectoryOffer(id: Self.id, name: "d", entries: (0..<30).map { Self.file("file-\($0)") })
        #expect(throws: DirectoryManifestError.self) { try big.validate(limits: limits) }
        #expect {
            try big.validate(limits: limits)
        } throws: { error in
            guard case DirectoryManifestError.tooLarge(let size, 1000) = error else { return false }
            return size > 1000
        }

        let huge = DirectoryOffer(id: Self.id, name: "d", entries: [Self.file("a", .max), Self.file("b", 2)])
        #expect(huge.totalSize == .max)  // saturates rather than wrapping round to 1
        #expect(throws: DirectoryManifestError.tooLarge(.max, limit: 1 << 40)) { try huge.validate() }

        let deep = Array(repeating: "d", count: 65).joined(separator: "/")
        #expect(throws: DirectoryManifestError.tooDeep(deep, limit: 64)) {
            try DirectoryOffer(id: Self.id, name: "d", entries: [Self.file(deep)]).validate()
        }
        let long = Array(repeating: String(repeating: "x", count: 200), count: 21).joined(separator: "/")
        #expect(throws: DirectoryManifestError.pathTooLong(long, limit: 4096)) {
            try DirectoryOffer(id: Self.id, name: "d", entries: [Self.file(long)]).validate()
        }
    }

    @Test func aCountBeyondTheMessageIsRefusedBeforeAnythingIsReserved() {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt8(8))
        buffer.writeBytes(Array(0..<16))
        buffer.writeBytes([0, 1, UInt8(ascii: "d"), 0, 0])
        buffer.writeInteger(UInt32.max)  // four billion entries declared, none present
        #expect(throws: PeerWireError.self) { try TransferMessage(decoding: buffer) }
        var accept = ByteBuffer()
        accept.writeInteger(UInt8(9))
        accept.writeBytes(Array(0..<16))
        accept.writeInteger(UInt32(1000))
        accept.writeBytes(Array(repeating: 0, count: 12))
        #expect(throws: PeerWireError.self) { try TransferMessage(decoding: accept) }
    }

    @Test func truncatedAndUnknownEntriesAreMalformed() throws {
        var buffer = ByteBuffer()
        TransferMessage.directoryOffer(Self.photos).encode(into: &buffer)
        let bytes = Array(buffer.readableBytesView)
        for cut in [20, 30, bytes.count - 1] {
            #expect(throws: PeerWireError.self) { try TransferMessage(decoding: ByteBuffer(bytes: bytes.prefix(cut))) }
        }
        var unknown = bytes
        unknown[17 + 8 + 17 + 4] = 3  // the first entry's kind, after the ID, name, type and count
        #expect(throws: PeerWireError.self) { try TransferMessage(decoding: ByteBuffer(bytes: unknown)) }
    }

    @Test func messagesInHostileErrorsAreSafeToPrint() {
        let error = DirectoryManifestError.badPath("evil\u{1B}[2J", .controlCharacter)
        #expect(error.description == "\"evil\\u{1b}[2J\": a name with control or bidirectional-override characters")
    }
}
