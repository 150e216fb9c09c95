public import Testing

extension Tag {
    /// A suite that needs the real thing: sockets, time on the wall clock, child processes or a display server.
    /// Everything else runs on pure state machines, manual clocks, embedded channels or in-memory links.
    /// `scripts/count-real-tests` counts the tests of these suites (`docs/testing.md`).
    @Tag public static var real: Self
}
