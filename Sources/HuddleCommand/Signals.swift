import ArgumentParser
import Dispatch
import Huddle
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

    /// Whether SIGINT or SIGTERM arrived while something waited for it.
    static var wasReceived: Bool { state.withLock { $0.received } }

    /// Runs `work` until it ends or SIGINT or SIGTERM arrives. At a signal the session stops (goodbyes to its
    /// peers and on multicast DNS) and `work` is cancelled, so a command busy sending, receiving or waiting for a
    /// peer still ends cleanly; the command then exits 130.
    static func stoppingOnTermination<T: Sendable>(
        _ session: PeerSession,
        _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let outcome = await withTaskGroup(of: Result<T, any Error>?.self) { group in
            group.addTask {
                do { return .success(try await work()) } catch { return .failure(error) }
            }
            group.addTask {
                await waitForTermination()
                guard !Task.isCancelled else { return nil }
                await session.stop()  // the goodbyes are out before the process ends
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            var result = first
            while let next = await group.next() { result = result ?? next }
            return result
        }
        guard !wasReceived, let outcome else {
            Output.error("interrupted")
            throw ExitCode.interrupted
        }
        return try outcome.get()
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
