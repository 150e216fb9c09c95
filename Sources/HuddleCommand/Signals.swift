import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM as an async wait, so commands can shut down cleanly (goodbyes sent) when stopped.
///
/// Waiting ends at the first signal, or when the waiting task is cancelled.
enum Signals {
    private struct State: ~Copyable {
        var installed = false
        var received = false
        var waiters: [AsyncStream<Void>.Continuation] = []
        var sources: [any DispatchSourceSignal] = []
    }

    private static let state = Mutex(State())

    static func waitForTermination() async {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let alreadyReceived = self.state.withLock { state -> Bool in
            if !state.installed {
                state.installed = true
                state.sources = self.install()
            }
            if !state.received { state.waiters.append(continuation) }
            return state.received
        }
        if alreadyReceived { return }
        for await _ in stream { return }
    }

    private static func install() -> [any DispatchSourceSignal] {
        let queue = DispatchQueue(label: "huddle.signals")
        return [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                let waiters = Signals.state.withLock { state in
                    state.received = true
                    defer { state.waiters = [] }
                    return state.waiters
                }
                for waiter in waiters { waiter.finish() }
            }
            source.resume()
            return source
        }
    }
}
