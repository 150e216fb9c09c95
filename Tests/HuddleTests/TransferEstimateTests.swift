import HuddleWire
import Testing

@testable import Huddle

/// Rate and time left as the command line shows them.
@Suite("Transfer rate and time left")
struct TransferEstimateTests {
    static func progress(completed: UInt64, total: UInt64, startedAt: UInt64 = 0) -> TransferProgress {
        TransferProgress(
            id: TransferID(bytes: Array(repeating: 1, count: 16)),
            peer: PeerID(rawValue: "peer"),
            direction: .receiving,
            completed: completed,
            total: total,
            startedAt: startedAt
        )
    }

    @Test func theRateCountsOnlyThisRunsBytes() {
        let resumed = Self.progress(completed: 600 << 20, total: 1000 << 20, startedAt: 400 << 20)
        let (rate, left) = resumed.estimate(elapsed: .seconds(2))
        #expect(rate == Double(100 << 20))
        #expect(left == 4)
    }

    @Test func nothingMovedYetIsUnknownAndCompleteIsZero() {
        #expect(Self.progress(completed: 5, total: 10, startedAt: 5).estimate(elapsed: .seconds(3)).secondsLeft == nil)
        #expect(Self.progress(completed: 10, total: 10).estimate(elapsed: .seconds(3)).secondsLeft == 0)
        #expect(Self.progress(completed: 0, total: 0).estimate(elapsed: .zero).secondsLeft == 0)
    }

    @Test(
        arguments: [
            (nil, "unknown"), (Double.infinity, "unknown"), (-1, "unknown"), (0, "0 s"), (0.012, "under 1 s"),
            (0.99, "under 1 s"), (1.4, "1 s"), (42, "42 s"), (89.4, "89 s"), (89.6, "1 min 30 s"), (185, "3 min 05 s"),
            (3599.4, "59 min 59 s"), (3600, "1 h 00 min"), (7620, "2 h 07 min"), (1e9, "99 h 00 min"),
        ] as [(Double?, String)]
    )
    func timeLeft(seconds: Double?, text: String) {
        #expect(TransferProgress.describeRemaining(seconds) == text)
    }

    @Test(
        arguments: [
            (0, "0 B/s"), (512, "512 B/s"), (1023.4, "1023 B/s"), (1024, "1.0 KiB/s"), (38_400, "37.5 KiB/s"),
            (440.2 * 1_048_576, "440 MiB/s"), (1.25 * 1_073_741_824, "1.3 GiB/s"), (-5, "0 B/s"),
        ] as [(Double, String)]
    )
    func rate(bytesPerSecond: Double, text: String) {
        #expect(TransferProgress.describeRate(bytesPerSecond) == text)
    }
}
