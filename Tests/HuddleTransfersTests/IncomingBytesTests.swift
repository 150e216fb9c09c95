import HuddleTransfers
import Testing

/// The rules of the bytes arriving for one incoming file.
@Suite("Incoming bytes rules")
struct IncomingBytesTests {
    @Test func chunksMustComeInOrderAndWithinTheOfferedSize() {
        var bytes = IncomingBytes(size: 100, present: 40, progressInterval: 1 << 20)
        #expect(bytes.chunk(at: 0, count: 10) == .refuse("chunk at 0 of 10 bytes does not fit (have 40)"))
        #expect(bytes.chunk(at: 40, count: 61) == .refuse("chunk at 40 of 61 bytes does not fit (have 40)"))
        #expect(bytes.written == 40)
        #expect(bytes.chunk(at: 40, count: 30) == .take(reportProgress: false))
        #expect(bytes.chunk(at: 70, count: 30) == .take(reportProgress: true))  // the end is always reported
        #expect(bytes.written == 100 && bytes.startedAt == 40)
        #expect(bytes.chunk(at: 100, count: 1) == .refuse("chunk at 100 of 1 bytes does not fit (have 100)"))
    }

    @Test func progressIsDueEveryIntervalFromTheLastReport() {
        var bytes = IncomingBytes(size: 10_000, present: 0, progressInterval: 1000)
        let due = (0..<25).map { index in bytes.chunk(at: UInt64(index * 400), count: 400) }
        let reported = due.indices.filter { due[$0] == .take(reportProgress: true) }.map { ($0 + 1) * 400 }
        #expect(reported == [1200, 2400, 3600, 4800, 6000, 7200, 8400, 9600, 10_000])
    }

    @Test func theEndKeepsVerifiedBytesKeepsPartialsOfShortRunsAndDiscardsMismatches() {
        var bytes = IncomingBytes(size: 8, present: 0, progressInterval: 1)
        let hash: [UInt8] = [1, 2, 3]
        #expect(
            bytes.verdict(sha256: hash, claimed: hash, writeFailure: nil)
                == .failKeepingPartial("ended at 0 of 8 bytes")
        )
        _ = bytes.chunk(at: 0, count: 8)
        #expect(bytes.verdict(sha256: hash, claimed: hash, writeFailure: nil) == .keep)
        #expect(
            bytes.verdict(sha256: hash, claimed: nil, writeFailure: nil)
                == .failKeepingPartial("END without the file's SHA-256")
        )
        #expect(
            bytes.verdict(sha256: hash, claimed: hash, writeFailure: "disk full") == .failKeepingPartial("disk full")
        )
        #expect(
            bytes.verdict(sha256: hash, claimed: [9], writeFailure: nil)
                == .failDiscarding("SHA-256 mismatch: the data does not match the sender's")
        )
    }
}
