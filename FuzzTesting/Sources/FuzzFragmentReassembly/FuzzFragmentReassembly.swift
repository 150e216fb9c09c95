import HuddleFuzzHarnesses

/// libFuzzer's entry point: each input through `fuzzFragmentReassembly`, whose file in FuzzTesting/Harnesses says
/// what it checks. A broken rule ends the process, so libFuzzer reports a crash and keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    runFuzzHarness(fuzzFragmentReassembly, start: start, count: count)
}
