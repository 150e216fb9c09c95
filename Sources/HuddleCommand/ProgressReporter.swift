import Foundation
import Huddle
import HuddleApp
import HuddleForeign
import HuddleWire
import NIOConcurrencyHelpers

/// Progress and results: a redrawn line on a terminal, plain lines in a pipe (every 16 MiB, and for a directory
/// each finished file), or JSON objects.
final class ProgressReporter: Sendable {
    let json: Bool
    let isTerminal = isatty(1) == 1
    private let started = NIOLockedValueBox<[TransferID: ContinuousClock.Instant]>([:])

    init(json: Bool) {
        self.json = json
    }

    func show(_ progress: TransferProgress) {
        let (first, since) = started.withLockedValue { started -> (Bool, ContinuousClock.Instant) in
            if let start = started[progress.id] { return (false, start) }
            started[progress.id] = .now
            return (true, .now)
        }
        let (rate, secondsLeft) = progress.estimate(elapsed: since.duration(to: .now))
        if json { return Output.json(ProgressRecord(progress, bytesPerSecond: rate, secondsLeft: secondsLeft)) }
        if first, progress.startedAt > 0 {
            let files = progress.file.map { " (\($0.filesCompleted) of \($0.fileCount) files present)" } ?? ""
            Output.line("resuming \(progress.id) at \(progress.startedAt) bytes\(files)")
        }
        let percent = progress.total == 0 ? 100 : Int(progress.completed * 100 / progress.total)
        let verb = progress.direction == .sending ? "sending" : "receiving"
        let files = progress.file.map { "\($0.filesCompleted)/\($0.fileCount) files, " } ?? ""
        let left = secondsLeft.flatMap { $0 > 0 ? ", \(TransferProgress.describeRemaining($0)) left" : nil } ?? ""
        let line =
            "\(verb) \(progress.id): \(percent)% (\(files)\(progress.completed)/\(progress.total) bytes, "
            + "\(TransferProgress.describeRate(rate))\(left))"
        let done =
            progress.completed == progress.total && progress.file.map { $0.filesCompleted == $0.fileCount } != false
        if isTerminal {
            let current = progress.file.map { file in " \(file.path) \(Self.percent(file.completed, of: file.total))%" }
            let shown = Output.text(line + (current ?? ""))
            FileHandle.standardOutput.write(Data(("\r\u{1B}[K" + shown + (done ? "\n" : "")).utf8))
        } else if let file = progress.file, file.completed == file.total {
            Output.line("\(verb == "sending" ? "sent" : "verified") \(file.path) — \(line)")
        } else if done || progress.completed % (16 << 20) < (1 << 20) {
            Output.line(line)
        }
    }

    static func percent(_ completed: UInt64, of total: UInt64) -> Int {
        total == 0 ? 100 : Int(completed * 100 / total)
    }

    /// A result line, or its JSON record.
    func result(_ record: some Encodable, text: String) {
        if json {
            Output.json(record)
        } else {
            Output.line(text)
        }
    }
}

extension ProgressReporter {
    /// A foreign transfer's progress: as JSON, or a line at every 16 MiB and at the end (redrawn on a terminal).
    func show(_ progress: ForeignProgress) {
        let verb = progress.isOutgoing ? "sending" : "receiving"
        if json { return Output.json(ProgressRecord(progress)) }
        let percent = Self.percent(progress.completed, of: progress.total)
        let line = "\(verb) \(progress.fileName): \(percent)% (\(progress.completed)/\(progress.total) bytes)"
        let done = progress.completed == progress.total
        if isTerminal {
            FileHandle.standardOutput.write(Data(("\r\u{1B}[K" + Output.text(line) + (done ? "\n" : "")).utf8))
        } else if done || progress.completed % (16 << 20) < (256 << 10) {
            Output.line(line)
        }
    }
}
