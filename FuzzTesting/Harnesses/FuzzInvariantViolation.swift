/// One input broke a rule a fuzz harness checks (a round trip, a limit, a handshake rule). The harness throws it; a
/// libFuzzer run turns it into a crash that keeps the input (`runFuzzHarness`), the replay tests into a failed test
/// that names the input file.
public struct FuzzInvariantViolation: Error, CustomStringConvertible {
    /// What went wrong, in the harness's words.
    public let message: String
    /// Where the harness checked it (`#fileID:#line`).
    public let location: String

    public var description: String { "\(message) (\(location))" }
}

/// Throws a `FuzzInvariantViolation` saying `message` unless `condition` holds: the harnesses' `precondition`.
func require(
    _ condition: Bool,
    _ message: @autoclosure () -> String,
    fileID: StaticString = #fileID,
    line: UInt = #line
) throws(FuzzInvariantViolation) {
    guard !condition else { return }
    throw FuzzInvariantViolation(message: message(), location: "\(fileID):\(line)")
}

/// Throws a `FuzzInvariantViolation` saying `message`: the harnesses' `preconditionFailure`.
func violation(
    _ message: String,
    fileID: StaticString = #fileID,
    line: UInt = #line
) -> FuzzInvariantViolation {
    FuzzInvariantViolation(message: message, location: "\(fileID):\(line)")
}

/// What a harness executable's `LLVMFuzzerTestOneInput` does: runs `harness` on libFuzzer's input and, when the
/// harness reports a violation, ends the process with it (libFuzzer reports a crash and keeps the input).
public func runFuzzHarness(
    _ harness: (UnsafeRawBufferPointer) throws(FuzzInvariantViolation) -> Void,
    start: UnsafeRawPointer?,
    count: Int
) -> CInt {
    do {
        try harness(UnsafeRawBufferPointer(start: count > 0 ? start : nil, count: count))
    } catch {
        fatalError("fuzz invariant violated: \(error)")
    }
    return 0
}
