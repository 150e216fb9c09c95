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
        if first, let resuming = ProgressText.resuming(progress) { Output.line(resuming) }
        let line = ProgressText.line(progress, bytesPerSecond: rate, secondsLeft: secondsLeft)
        let done = ProgressText.isDone(progress)
        if isTerminal {
            redraw(line + (ProgressText.currentFile(progress) ?? ""), done: done)
        } else if let fileDone = ProgressText.fileDone(progress, line: line) {
            Output.line(fileDone)
        } else if done || progress.completed % (16 << 20) < (1 << 20) {
            Output.line(line)
        }
    }

    /// Rewrites the terminal's current line (and ends it when `done`).
    func redraw(_ line: String, done: Bool) {
        FileHandle.standardOutput.write(Data(("\r\u{1B}[K" + Output.text(line) + (done ? "\n" : "")).utf8))
    }

    /// A result line, or its JSON record.
    func result(_ record: some Encodable, text: String) {
        json ? Output.json(record) : Output.line(text)
    }
}

extension ProgressReporter {
    /// A foreign transfer's progress: as JSON, or a line at every 16 MiB and at the end (redrawn on a terminal).
    func show(_ progress: ForeignProgress) {
        if json { return Output.json(ProgressRecord(progress)) }
        let line = ProgressText.line(progress)
        let done = progress.completed == progress.total
        if isTerminal {
            redraw(line, done: done)
        } else if done || progress.completed % (16 << 20) < (256 << 10) {
            Output.line(line)
        }
    }
}
