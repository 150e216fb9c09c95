import Testing

@testable import HuddleFuzzHarnesses

/// The replay reports what it must: a broken rule fails the case and names the file; a harness without seeds fails
/// instead of running no case.
@Suite struct FuzzReplayFailureTests {
    @Test func aBrokenRuleFailsTheCaseAndNamesTheFile() throws {
        let input = try #require(FuzzReplayInput.all(of: "FuzzFrames").first)
        guard case .file(let path) = input else {
            Issue.record("FuzzFrames has no seeds: \(input.testDescription)")
            return
        }
        var seen: [UInt8]? = nil
        let failure = try replayFailure(of: input) { bytes throws(FuzzInvariantViolation) in
            seen = Array(bytes)
            try require(bytes.isEmpty, "the rule under test")
        }
        #expect(failure?.contains("FuzzTesting/\(path)") == true)
        #expect(failure?.contains("the rule under test") == true)
        #expect(seen?.isEmpty == false, "the harness got the file's bytes")
    }

    @Test func aHarnessWithoutSeedsFails() throws {
        let inputs = FuzzReplayInput.all(of: "FuzzNoSuchHarness")
        #expect(inputs.count == 1)
        let input = try #require(inputs.first)
        guard case .noSeeds(let reason) = input else {
            Issue.record("expected no seeds, got \(input.testDescription)")
            return
        }
        #expect(reason.contains("FuzzTesting/seeds/FuzzNoSuchHarness/"))
        let failure = try replayFailure(of: input) { _ throws(FuzzInvariantViolation) in }
        #expect(failure?.contains("no seeds to replay") == true)
    }

    @Test func aBrokenRuleSaysWhereItWasChecked() {
        let broken = violation("a frame over the limit was accepted")
        #expect(broken.message == "a frame over the limit was accepted")
        #expect(broken.description.hasPrefix("a frame over the limit was accepted (HuddleFuzzReplayTests/"))
    }
}
