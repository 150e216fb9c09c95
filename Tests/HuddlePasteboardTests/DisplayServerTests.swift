import Testing

/// The suites that start display servers (Xvfb, sway) and time what they see, run one after another: in parallel,
/// twelve-megabyte INCR transfers and compositor start-ups on a two-core machine distort the latency and idle-CPU
/// measurements.
@Suite(.serialized)
enum DisplayServerTests {}
