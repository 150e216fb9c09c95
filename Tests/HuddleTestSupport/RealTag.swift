public import Testing

extension Tag {
    /// A suite that needs the real thing: sockets, time on the wall clock, child processes or a display server.
    /// Everything else runs on pure state machines, manual clocks, embedded channels or in-memory links.
    /// `scripts/count-real-tests` counts the tests of these suites (`docs/testing.md`).
    @Tag public static var real: Self

    /// A real suite (``real``) whose real thing is a display server (Xvfb, a headless sway) and the clipboard tools
    /// that talk to it: the pasteboard backends are proven against the servers they drive. Counted apart from the
    /// suites that need sockets or the wall clock.
    @Tag public static var displayServer: Self
}
