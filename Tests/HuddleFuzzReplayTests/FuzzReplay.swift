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
    switch input {
    case .noSeeds(let reason):
        Issue.record("no seeds to replay: \(reason)", sourceLocation: sourceLocation)
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
        if let violation {
            Issue.record("FuzzTesting/\(path): \(violation)", sourceLocation: sourceLocation)
        }
    }
}
