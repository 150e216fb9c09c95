import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM, caught on whichever thread the kernel delivers them to, and handed to a thread that waits for
/// them. (Dispatch's signal sources, which swift-service-lifecycle uses, lose a signal now and then on Linux: one
/// delivered to a thread that has not blocked it is raised again at the thread that first registered the source,
/// where nothing reads it. A command then ignored Ctrl-C: the process had to be killed, without goodbyes.)
///
/// The handler only writes one byte to a pipe (async-signal-safe); a thread of this type's own reads the pipe and
/// calls `onSignal` for each signal.
enum ShutdownSignals {
    /// The pipe's write end, for the handler; -1 until ``install(_:)``.
    nonisolated(unsafe) private static var writeEnd: Int32 = -1

    /// Catches SIGINT and SIGTERM from now on and calls `onSignal` on a thread of its own for each one.
    static func install(_ onSignal: @escaping @Sendable () -> Void) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        writeEnd = ends[1]
        let readEnd = ends[0]
        let reader = Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count == 1 {
                    onSignal()
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
        reader.name = "huddle-signals"
        reader.start()
        for signalNumber in [SIGINT, SIGTERM] {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { _ in
                var byte: UInt8 = 1
                _ = write(ShutdownSignals.writeEnd, &byte, 1)
            }
            #else
            action.__sigaction_u.__sa_handler = { _ in
                var byte: UInt8 = 1
                _ = write(ShutdownSignals.writeEnd, &byte, 1)
            }
            #endif
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(signalNumber, &action, nil)
        }
    }
}
