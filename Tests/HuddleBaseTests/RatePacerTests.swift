import HuddleBase
import Testing

@Suite("Bandwidth limits: rates as people write them, and the pacer that holds bytes to one")
struct RatePacerTests {
    @Test(arguments: [
        ("500K", 512_000), ("500k", 512_000), ("2M", 2_097_152), ("1.5M", 1_572_864), ("2MiB/s", 2_097_152),
        ("800000", 800_000), ("1G", 1_073_741_824), ("64KB", 65_536), ("1K", 1024), ("10kb/s", 10_240),
    ])
    func ratesParseAsCurlWritesThem(text: String, bytes: UInt64) {
        #expect(ByteRate(parsing: text)?.bytesPerSecond == bytes)
    }

    @Test(arguments: ["", "K", "fast", "-5K", "1,5M", "0", "1023", "2T", "1.2.3M", "5 K", "nanK", "1e9", "2048G"])
    func whatIsNotARateInRangeIsRefused(text: String) {
        #expect(ByteRate(parsing: text) == nil)
    }

    @Test func ratesReadAsPeopleSayThem() {
        #expect(ByteRate(parsing: "500K")?.description == "500 KiB/s")
        #expect(ByteRate(parsing: "1.5M")?.description == "1.5 MiB/s")
        #expect(ByteRate(bytesPerSecond: 3 << 30).description == "3 GiB/s")
        #expect(ByteRate(bytesPerSecond: 1500).description == "1.5 KiB/s")
    }

    @Test func aRateSaysHowLongBytesTake() {
        let rate = ByteRate(bytesPerSecond: 1000)
        #expect(rate.duration(of: 1000) == .seconds(1))
        #expect(rate.duration(of: 2500) == .milliseconds(2500))
        #expect(rate.duration(of: 1) == .milliseconds(1))
        #expect(rate.duration(of: 0) == .zero)
    }

    /// 100 chunks of 10,000 bytes at 100,000 bytes a second: each may go once the ones before are paid for
    /// (less the tolerance), so the last goes at 9.65 s — and never earlier than the rate allows.
    @Test func aSteadyStreamGoesAtTheRate() throws {
        var pacer = RatePacer(rate: ByteRate(bytesPerSecond: 100_000), tolerance: .milliseconds(250))
        let start = ContinuousClock.now
        var now = start
        for index in 0..<100 {
            if let wait = pacer.admit(10_000, now: now) {
                #expect(wait > now)
                now = wait
            }
            // Chunk `index` may go at index × 0.1 s less the tolerance, and not before.
            let earliest = start + .milliseconds(max(0, index * 100 - 250))
            #expect(now >= earliest, "chunk \(index) went at \(start.duration(to: now))")
        }
        #expect(start.duration(to: now) == .milliseconds(9650))
        #expect(pacer.paidUntil == start + .seconds(10))
    }

    @Test func theToleranceIsTheOnlyBurst() {
        var pacer = RatePacer(rate: ByteRate(bytesPerSecond: 1000), tolerance: .milliseconds(250))
        let now = ContinuousClock.now
        #expect(pacer.admit(100, now: now) == nil)  // paid until 0.1 s
        #expect(pacer.admit(100, now: now) == nil)  // 0.2 s
        #expect(pacer.admit(100, now: now) == nil)  // 0.3 s: started at 0.2, within the tolerance
        #expect(pacer.admit(100, now: now) == now + .milliseconds(50))  // starts at 0.3 s: waits until 0.05 s
    }

    /// A long pause saves up nothing beyond the tolerance: afterwards the bytes are paced as from a standing start.
    @Test func aPauseSavesUpNoBurst() {
        var pacer = RatePacer(rate: ByteRate(bytesPerSecond: 1000), tolerance: .milliseconds(250))
        let start = ContinuousClock.now
        #expect(pacer.admit(1000, now: start) == nil)
        let later = start + .seconds(60)
        #expect(pacer.admit(1000, now: later) == nil)
        #expect(pacer.admit(1000, now: later) == later + .milliseconds(750))
        #expect(pacer.paidUntil == later + .seconds(2))
    }
}
