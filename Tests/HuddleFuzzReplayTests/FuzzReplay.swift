import Foundation
import HuddleFuzzHarnesses
import Testing

/// Runs one replay input through `harness`. Records an issue naming the file when the harness reports a broken rule,
/// and one when the harness has no seeds to replay.
func replay(
    _ input: FuzzReplayInput,
    through harness: (UnsafeRawBufferPointer) throws(FuzzInvariantViolation) -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    if let failure = try replayFailure(of: input, through: harness) {
        Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation)
    }
}

/// What is wrong with replaying `input` through `harness`, naming the file and the rule; nil when nothing is.
func replayFailure(
    of input: FuzzReplayInput,
    through harness: (UnsafeRawBufferPointer) throws(FuzzInvariantViolation) -> Void
) throws -> String? {
    switch input {
    case .noSeeds(let reason):
        return "no seeds to replay: \(reason)"
    case .file(let path):
        let bytes = [UInt8](try Data(contentsOf: FuzzReplayInput.fuzzTesting.appending(path: path)))
        let violation = bytes.withUnsafeBytes { buffer -> FuzzInvariantViolation? in
            do throws(FuzzInvariantViolation) {
                try harness(buffer)
                return nil
            } catch {
                return error
            }
        }
        return violation.map { "FuzzTesting/\(path): \($0)" }
    }
}
