import Foundation
import Huddle
public import Logging

/// The session's log on standard error, one line a message, with every control character made visible
/// (`DisplayText.escaped`): a message may carry what a peer sent (an instance token, a reason), and a terminal
/// must never take an escape sequence from the network (docs/threat-model.md, "Terminal output and prompts").
public struct EscapingLogHandler: LogHandler {
    public var logLevel: Logger.Level = .warning
    public var metadata: Logger.Metadata = [:]
    /// Where a finished line goes: standard error, or a test's buffer.
    let write: @Sendable (String) -> Void

    public init(write: (@Sendable (String) -> Void)? = nil) {
        self.write = write ?? { FileHandle.standardError.write(Data($0.utf8)) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let fields = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let text = ([event.level.rawValue + ":", "\(event.message)"] + fields).joined(separator: " ")
        write("huddle: " + DisplayText.escaped(text) + "\n")
    }
}
