import Logging
import NIOConcurrencyHelpers
import Testing

@testable import HuddleApp

/// A peer's words reach the session's log (an instance token in a warning): the log line on standard error shows
/// its control characters and never passes an escape sequence to the terminal.
@Suite struct EscapingLogHandlerTests {
    @Test func aWarningCarryingAnEscapeSequenceIsWrittenWithItMadeVisible() {
        let written = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "huddle") { _ in
            EscapingLogHandler { line in written.withLockedValue { $0.append(line) } }
        }
        let token = "bob\u{1B}]52;c;Y3VybCBldmlsIHwgc2g=\u{07}"
        logger.warning("a transfer message from \(token) names another peer's transfer", metadata: ["peer": "\(token)"])
        logger.info("not shown below the warning level")
        let lines = written.withLockedValue { $0 }
        #expect(lines.count == 1)
        let line = lines.first ?? ""
        #expect(!line.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        #expect(line.hasPrefix("huddle: warning: a transfer message from bob\\e]52;c;"))
        #expect(line.hasSuffix(" peer=bob\\e]52;c;Y3VybCBldmlsIHwgc2g=\\a\n"))
    }
}
