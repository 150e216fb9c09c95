import HuddleDNS
import Testing

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny generator with a fixed seed, so every run sees the same inputs.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { self.state = seed }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound`.
    mutating func next(below bound: Int) -> Int { Int(self.next() % UInt64(bound)) }

    mutating func nextByte() -> UInt8 { UInt8(truncatingIfNeeded: self.next()) }
}

/// Robustness: no input may crash the decoder, and whatever decodes must re-encode to the same message.
@Suite("DNS decoder robustness")
struct DNSFuzzTests {
    static var seeds: [[UInt8]] {
        [
            Sample.serviceResponse.wireBytes(),
            Sample.serviceResponse.wireBytes(compressSRVTarget: false),
            Sample.knownAnswerQuery.wireBytes(),
            Sample.forwardPointerPacket,
            DNSMessage.response(answers: [
                DNSRecord(name: "h.local", data: .nsec(next: "h.local", types: [.a, .init(rawValue: 300)]), ttl: 120),
                DNSRecord(name: "h.local", data: .unknown(.hinfo, label("cpu") + label("os")), ttl: 120),
                DNSRecord(name: "h.local", data: .txt([]), ttl: 120),
            ]).wireBytes(),
        ]
    }

    @Test func splitMix64MatchesTheReferenceSequence() {
        var generator = SplitMix64(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(generator.next() == 0x06C4_5D18_8009_454F)
    }

    /// Every proper prefix of a valid packet fails as cut short, at an offset inside the prefix. A forward pointer
    /// (in ``Sample/forwardPointerPacket``) whose target was cut off counts as pointing out of range.
    @Test func everyPrefixOfAValidPacketFails() {
        let cutShort: [DNSParseError.Code] = [.truncated, .badRDataLength, .pointerOutOfRange]
        for packet in Self.seeds {
            #expect(throws: Never.self) { try decode(packet) }
            for length in 0..<packet.count {
                let error = decodeError(Array(packet[..<length]))
                #expect(error.map { cutShort.contains($0.code) } == true, "prefix of \(length)")
                #expect(error.map { (0...length).contains($0.offset) } == true, "prefix of \(length)")
            }
        }
    }

    /// Applies one random change: flip, overwrite, truncate, insert, delete, duplicate or plant a pointer.
    static func mutate(_ bytes: inout [UInt8], using generator: inout SplitMix64) {
        let interesting: [UInt8] = [0x00, 0x01, 0x3F, 0x40, 0x7F, 0x80, 0xC0, 0xFF]
        let position = bytes.isEmpty ? 0 : generator.next(below: bytes.count)
        switch generator.next(below: 8) {
        case 0 where !bytes.isEmpty:
            bytes[position] ^= 1 << UInt8(generator.next(below: 8))
        case 1 where !bytes.isEmpty:
            bytes[position] = generator.nextByte()
        case 2 where !bytes.isEmpty:
            bytes[position] = interesting[generator.next(below: interesting.count)]
        case 3:
            bytes.removeLast(generator.next(below: bytes.count + 1))
        case 4:
            let count = 1 + generator.next(below: 8)
            bytes.insert(contentsOf: (0..<count).map { _ in generator.nextByte() }, at: position)
        case 5 where !bytes.isEmpty:
            let count = min(1 + generator.next(below: 8), bytes.count - position)
            bytes.removeSubrange(position..<position + count)
        case 6 where !bytes.isEmpty:
            let count = min(1 + generator.next(below: 16), bytes.count - position)
            bytes.insert(contentsOf: bytes[position..<position + count], at: generator.next(below: bytes.count + 1))
        case 7 where bytes.count >= 2:
            let at = min(position, bytes.count - 2)
            let target = generator.next(below: bytes.count + 4)
            bytes.replaceSubrange(at..<at + 2, with: [0xC0 | UInt8(target >> 8 & 0x3F), UInt8(target & 0xFF)])
        default:
            break
        }
    }

    @Test func twentyThousandMutatedPacketsNeverCrash() throws {
        let decoder = DNSMessageDecoder()
        let seeds = Self.seeds
        var generator = SplitMix64(seed: 0x4855_4444_4C45)
        var decoded = 0
        var rejected: [DNSParseError.Code: Int] = [:]
        var unstable: [[UInt8]] = []
        var badOffsets: [[UInt8]] = []

        for _ in 0..<20_000 {
            var bytes = seeds[generator.next(below: seeds.count)]
            for _ in 0...generator.next(below: 4) { Self.mutate(&bytes, using: &generator) }
            let message: DNSMessage
            do {
                message = try decoder.decode(bytes)
            } catch let error as DNSParseError {
                rejected[error.code, default: 0] += 1
                if !(0...bytes.count).contains(error.offset) { badOffsets.append(bytes) }
                continue
            }
            decoded += 1
            let again = try? decoder.decode(message.encoded())
            if again != message { unstable.append(bytes) }
        }

        #expect(unstable.isEmpty, "first unstable input: \(unstable.first.map(Self.hex) ?? "")")
        #expect(badOffsets.isEmpty, "first input with an offset outside it: \(badOffsets.first.map(Self.hex) ?? "")")
        // The mix exercises both paths and most error codes.
        #expect(decoded > 2000)
        #expect(rejected.values.reduce(0, +) > 2000)
        for code: DNSParseError.Code in [
            .truncated, .badRDataLength, .badLabelType, .pointerOutOfRange, .badRData, .pointerLoop, .tooManyRecords,
        ] {
            #expect(rejected[code, default: 0] > 0, "no input failed with \(code)")
        }
    }

    /// Inputs that once mattered to other stacks; they only must not crash.
    @Test(arguments: [
        [UInt8](),
        [UInt8](repeating: 0xFF, count: 64),
        [UInt8](repeating: 0xC0, count: 64),
        header(questions: 1, answers: 1) + [0xC0, 0x0C, 0xC0, 0x0E, 0xC0, 0x0C, 0, 1, 0, 1],
        header(answers: 1) + [0] + recordTail(type: 47, rdata: [0, 0, 33] + [UInt8](repeating: 0xFF, count: 33)),
        header(answers: 1) + [0] + recordTail(type: 47, rdata: [0, 0, 1]),
        header(answers: 1) + [0] + recordTail(type: 47, rdata: [0xC0, 0x0C, 0, 2, 0x40]),
        header(answers: 1) + [0] + recordTail(type: 16, rdata: [0xFF]),
        header(answers: 1) + [0] + be16(1) + be16(1) + be32(0) + [0xFF, 0xFF],
    ])
    func oddInputsOnlyMustNotCrash(bytes: [UInt8]) throws {
        let message: DNSMessage
        do {
            message = try decode(bytes)
        } catch {
            #expect(error is DNSParseError)
            return
        }
        #expect(try decode(message.wireBytes()) == message)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
