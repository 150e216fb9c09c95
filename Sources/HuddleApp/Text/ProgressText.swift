public import Huddle
public import HuddleForeign

/// How a transfer's progress reads: one line per report, the same on a terminal (redrawn) and in a pipe.
public enum ProgressText {
    /// `resuming 0a1b2c3d at 1048576 bytes (3 of 9 files present)`: for the first report of a transfer that
    /// continues an earlier one; nil for one that starts afresh.
    public static func resuming(_ progress: TransferProgress) -> String? {
        guard progress.startedAt > 0 else { return nil }
        let files = progress.file.map { " (\($0.filesCompleted) of \($0.fileCount) files present)" } ?? ""
        return "resuming \(progress.id) at \(progress.startedAt) bytes\(files)"
    }

    /// `sending 0a1b2c3d: 42% (2/9 files, 440/1000 bytes, 1.2 MB/s, 3 s left)`.
    public static func line(_ progress: TransferProgress, bytesPerSecond: Double, secondsLeft: Double?) -> String {
        let files = progress.file.map { "\($0.filesCompleted)/\($0.fileCount) files, " } ?? ""
        let left = secondsLeft.flatMap { $0 > 0 ? ", \(TransferProgress.describeRemaining($0)) left" : nil } ?? ""
        return
            "\(verb(progress.direction == .sending)) \(progress.id): \(percent(progress.completed, of: progress.total))% "
            + "(\(files)\(progress.completed)/\(progress.total) bytes, \(TransferProgress.describeRate(bytesPerSecond))\(left))"
    }

    /// ` holiday/img1.jpg 40%`: the directory's file in flight, to follow the line on a terminal.
    public static func currentFile(_ progress: TransferProgress) -> String? {
        progress.file.map { " \($0.path) \(percent($0.completed, of: $0.total))%" }
    }

    /// `sent holiday/img1.jpg — LINE` (`verified` when receiving) once a directory's file is complete; else nil.
    public static func fileDone(_ progress: TransferProgress, line: String) -> String? {
        guard let file = progress.file, file.completed == file.total else { return nil }
        return "\(progress.direction == .sending ? "sent" : "verified") \(file.path) — \(line)"
    }

    /// Whether every byte and every file of the transfer is there.
    public static func isDone(_ progress: TransferProgress) -> Bool {
        progress.completed == progress.total && progress.file.map { $0.filesCompleted == $0.fileCount } != false
    }

    /// `receiving photo.jpg: 42% (440/1000 bytes)`: a LocalSend or KDE Connect transfer.
    public static func line(_ progress: ForeignProgress) -> String {
        "\(verb(progress.isOutgoing)) \(progress.fileName): \(percent(progress.completed, of: progress.total))% "
            + "(\(progress.completed)/\(progress.total) bytes)"
    }

    /// Whole percent, 100 for an empty transfer.
    public static func percent(_ completed: UInt64, of total: UInt64) -> Int {
        total == 0 ? 100 : Int(completed * 100 / total)
    }

    static func verb(_ sending: Bool) -> String { sending ? "sending" : "receiving" }
}
