import Foundation
import HuddleApp

extension Prompter {
    /// The process's prompter, reading standard input (from the first question on) and asking on standard output.
    static let standard = Prompter(
        lines: InputLines.stream(),
        show: { for line in $0 { Output.line(line) } },
        typedAfterShown: isatty(0) == 1
    )
}

/// Standard input as an async sequence of lines, each stamped when read, read on a thread of its own. One reader
/// per process: ``Prompter/standard``, or `advertise --control`'s commands.
enum InputLines {
    static func stream() -> AsyncStream<Prompter.Line> {
        let (stream, continuation) = AsyncStream<Prompter.Line>.makeStream()
        let thread = Thread {
            while let line = readLine(strippingNewline: true) {
                continuation.yield(Prompter.Line(text: line, at: .now))
            }
            continuation.finish()
        }
        thread.start()
        return stream
    }
}
