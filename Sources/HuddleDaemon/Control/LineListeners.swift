import NIOConcurrencyHelpers

/// The commands following one of the daemon's streams of lines — `huddle chat` its chat (docs/daemon.md, "Chat"),
/// `huddle clip sync` its clipboard ("The clipboard"): each gets every line said, from when it starts listening
/// until it leaves. A listener that does not read keeps the newest 256 lines.
public final class LineListeners: Sendable {
    private let listeners = NIOLockedValueBox<[Int: AsyncStream<String>.Continuation]>([:])
    private let next = NIOLockedValueBox(0)

    public init() {}

    /// A new listener's lines; it stops listening when the stream is let go of or its reader is cancelled.
    public func listen() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = next.withLockedValue { next in
            defer { next += 1 }
            return next
        }
        continuation.onTermination = { [weak self] _ in self?.listeners.withLockedValue { $0[id] = nil } }
        listeners.withLockedValue { $0[id] = continuation }
        return stream
    }

    /// How many listen now.
    public var count: Int { listeners.withLockedValue { $0.count } }

    /// Says `line` to every listener.
    public func say(_ line: String) {
        for listener in listeners.withLockedValue({ Array($0.values) }) { listener.yield(line) }
    }
}
