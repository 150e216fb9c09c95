/// Rate and time left of a transfer, and how to say them in one short line.
extension TransferProgress {
    /// Bytes a second of this run (resumed bytes are not counted) over `elapsed`, and the seconds left at that
    /// rate: `nil` while nothing has moved yet, zero when complete.
    public func estimate(elapsed: Duration) -> (bytesPerSecond: Double, secondsLeft: Double?) {
        let seconds = max(0.001, elapsed / .seconds(1))
        let rate = Double(completed - min(completed, startedAt)) / seconds
        if completed >= total { return (rate, 0) }
        guard rate > 0 else { return (rate, nil) }
        return (rate, Double(total - completed) / rate)
    }

    /// "under 1 s", "42 s", "3 min 05 s", "2 h 07 min", or "unknown" (`nil`): whole units, never "0 s" for a
    /// transfer that is not done, and never more precision than a moving estimate has.
    public static func describeRemaining(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0 else { return "unknown" }
        if seconds == 0 { return "0 s" }
        if seconds < 1 { return "under 1 s" }
        let whole = Int(min(seconds, 99 * 3600).rounded())
        if whole < 90 { return "\(whole) s" }
        if whole < 3600 {
            let paddedSeconds = whole % 60 < 10 ? "0\(whole % 60)" : "\(whole % 60)"
            return "\(whole / 60) min \(paddedSeconds) s"
        }
        let minutes = whole % 3600 / 60
        return "\(whole / 3600) h \(minutes < 10 ? "0" : "")\(minutes) min"
    }

    /// "512 B/s", "37.5 KiB/s", "440 MiB/s", "1.2 GiB/s": three significant figures at most.
    public static func describeRate(_ bytesPerSecond: Double) -> String {
        let units = ["B/s", "KiB/s", "MiB/s", "GiB/s"]
        var value = max(0, bytesPerSecond)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 || value >= 100 { return "\(Int(value.rounded())) \(units[unit])" }
        let tenths = (value * 10).rounded() / 10
        return "\(tenths) \(units[unit])"
    }
}
