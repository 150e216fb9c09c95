/// One fixed instant of the continuous clock, the zero of ``Swift/ContinuousClock/Instant/testTime(_:)``.
private let testEpoch = ContinuousClock.now

extension ContinuousClock.Instant {
    /// `seconds` after one fixed instant: for tests of pure rules that take the time as an instant, written as the
    /// seconds a test steps through (`at: .testTime(59)`, then `at: .testTime(60)`).
    public static func testTime(_ seconds: Double) -> Self {
        testEpoch + .seconds(seconds)
    }
}
