import HuddleArenaCore
import Testing

/// The binary layout of the four messages: exact bytes, round trips, and rejection of bad input without trapping.
@Suite("Message codec")
struct CodecTests {
    let alice = ArenaPlayerID(owner: "alice", index: 1)

    var samples: [ArenaMessage] {
        [
            .state(
                tick: 77,
                players: [
                    ArenaPlayerState(id: self.alice, position: ArenaPosition(x: 1_000, y: -5)),
                    ArenaPlayerState(id: ArenaPlayerID(owner: "alice", index: 2), position: ArenaPosition(x: 3, y: 4)),
                ]
            ),
            .state(tick: 0, players: []),
            .claim(ArenaClaim(coin: 12, player: self.alice, tick: 4_000_000)),
            .join(player: self.alice, name: "Ålice the bot"),
            .join(player: self.alice, name: ""),
            .final(
                peer: "alice",
                players: [
                    ArenaFinalPlayer(
                        id: self.alice,
                        name: "A",
                        position: ArenaPosition(x: 640, y: 128),
                        reportedScore: 3
                    )
                ]
            ),
            .final(peer: "bob", players: []),
        ]
    }

    @Test func claimBytesAreTheDocumentedLayout() throws {
        let bytes = try ArenaMessage.claim(ArenaClaim(coin: 0x0102_0304, player: self.alice, tick: 0x0A0B_0C0D))
            .encoded()
        let expected: [UInt8] =
            [1, 2, 0x01, 0x02, 0x03, 0x04, 0x0A, 0x0B, 0x0C, 0x0D, 5] + Array("alice".utf8) + [1]
        #expect(bytes == expected)
    }

    @Test func stateBytesAreTheDocumentedLayout() throws {
        let message = ArenaMessage.state(
            tick: 9,
            players: [ArenaPlayerState(id: ArenaPlayerID(owner: "b", index: 0), position: ArenaPosition(x: -1, y: 256))]
        )
        let expected: [UInt8] = [1, 1, 0, 0, 0, 9, 1, 1, 0x62, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 1, 0]
        #expect(try message.encoded() == expected)
    }

    @Test func finalBytesAreTheDocumentedLayout() throws {
        let message = ArenaMessage.final(
            peer: "b",
            players: [
                ArenaFinalPlayer(
                    id: ArenaPlayerID(owner: "b", index: 2),
                    name: "Z",
                    position: ArenaPosition(x: 1, y: 2),
                    reportedScore: 7
                )
            ]
        )
        let expected: [UInt8] = [1, 4, 1, 0x62, 1, 1, 0x62, 2, 1, 0x5A, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 7]
        #expect(try message.encoded() == expected)
    }

    @Test func everyMessageRoundTrips() throws {
        for message in self.samples {
            let bytes = try message.encoded()
            #expect(try ArenaMessage(decoding: bytes) == message)
        }
    }

    @Test func everyTruncationIsRejectedAsTruncated() throws {
        for message in self.samples {
            let bytes = try message.encoded()
            for length in 0..<bytes.count {
                #expect(throws: ArenaCodecError.self) { try ArenaMessage(decoding: Array(bytes.prefix(length))) }
                let code = Self.code { try ArenaMessage(decoding: Array(bytes.prefix(length))) }
                #expect(code == .truncated, "prefix of \(length) bytes of \(message)")
            }
        }
    }

    @Test func rejectsTrailingBytesVersionKindAndSize() throws {
        let claim = try ArenaMessage.claim(ArenaClaim(coin: 1, player: self.alice, tick: 2)).encoded()
        #expect(Self.code { try ArenaMessage(decoding: claim + [0]) } == .trailingBytes)
        #expect(Self.code { try ArenaMessage(decoding: [2] + claim.dropFirst()) } == .unsupportedVersion)
        #expect(Self.code { try ArenaMessage(decoding: [1, 9, 0, 0]) } == .unknownKind)
        #expect(Self.code { try ArenaMessage(decoding: [UInt8](repeating: 1, count: 1_201)) } == .oversized)
    }

    @Test func rejectsBadNamesAndCounts() throws {
        let long = String(repeating: "x", count: 33)
        #expect(Self.code { try ArenaMessage.join(player: self.alice, name: long).encoded() } == .nameTooLong)
        let longOwner = ArenaPlayerID(owner: long, index: 0)
        #expect(
            Self.code { try ArenaMessage.claim(ArenaClaim(coin: 0, player: longOwner, tick: 0)).encoded() }
                == .nameTooLong
        )
        #expect(Self.code { try ArenaMessage.final(peer: "", players: []).encoded() } == .emptyName)
        // A join whose name is 33 bytes, and one whose name is not UTF-8.
        let head: [UInt8] = [1, 3, 5] + Array("alice".utf8) + [1]
        #expect(
            Self.code { try ArenaMessage(decoding: head + [33] + [UInt8](repeating: 0x78, count: 33)) } == .nameTooLong
        )
        #expect(Self.code { try ArenaMessage(decoding: head + [2, 0xC3, 0x28]) } == .invalidUTF8)
        // An owner of length 0.
        #expect(Self.code { try ArenaMessage(decoding: [1, 3, 0, 1, 0]) } == .emptyName)
        // A state claiming five players.
        #expect(Self.code { try ArenaMessage(decoding: [1, 1, 0, 0, 0, 1, 5]) } == .tooManyPlayers)
        let five = (0..<5).map {
            ArenaPlayerState(id: ArenaPlayerID(owner: "a", index: UInt8($0)), position: .init(x: 0, y: 0))
        }
        #expect(Self.code { try ArenaMessage.state(tick: 1, players: five).encoded() } == .tooManyPlayers)
    }

    /// Kept as inputs that must only not crash: random bytes, and random mutations of valid messages.
    @Test func garbageNeverTraps() throws {
        var generator = SplitMix64(seed: 42)
        var decoded = 0
        for round in 0..<4_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                let length = Int(SplitMix64.reduce(generator.next(), below: 64))
                bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            } else {
                let samples = self.samples
                bytes = try samples[round / 2 % samples.count].encoded()
                let index = Int(SplitMix64.reduce(generator.next(), below: UInt64(bytes.count)))
                bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            if let message = try? ArenaMessage(decoding: bytes) {
                decoded += 1
                #expect(try message.encoded() == bytes)
            }
        }
        #expect(decoded > 0)
    }

    @Test func channelsAndReliability() {
        #expect(ArenaMessage.state(tick: 0, players: []).channel == 1)
        #expect(!ArenaMessage.state(tick: 0, players: []).isReliable)
        #expect(ArenaMessage.claim(ArenaClaim(coin: 0, player: self.alice, tick: 0)).channel == 2)
        #expect(ArenaMessage.final(peer: "a", players: []).isReliable)
    }

    /// The code of the error `body` throws, `nil` when it throws none (or not an ``ArenaCodecError``).
    private static func code(_ body: () throws -> Any) -> ArenaCodecError.Code? {
        do {
            _ = try body()
            return nil
        } catch {
            return (error as? ArenaCodecError)?.code
        }
    }
}
