import HuddleFuzzHarnesses

/// libFuzzer's entry point: each input through `fuzzArenaMessages`, whose file in FuzzTesting/Harnesses says
/// what it checks. A broken rule ends the process, so libFuzzer reports a crash and keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    runFuzzHarness(fuzzArenaMessages, start: start, count: count)
}
