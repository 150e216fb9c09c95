public import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM, caught on whichever thread the kernel delivers them to, and handed to a thread that waits for
/// them. (Dispatch's signal sources, which swift-service-lifecycle uses, lose a signal now and then on Linux: one
/// delivered to a thread that has not blocked it is raised again at the thread that first registered the source,
/// where nothing reads it. A program then ignored Ctrl-C: the process had to be killed, without goodbyes.)
///
/// The handler only writes one byte to a pipe (async-signal-safe); a thread of this type's own reads the pipe and
/// calls `onSignal` for each signal.
public enum ShutdownSignals {
    /// The pipe's write end, for the handler; -1 until ``catchSignals()``.
    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    /// Who hears a signal, and whether one came before anyone listened.
    private static let listener = NIOLockedValueBox<(onSignal: (@Sendable () -> Void)?, pending: Bool)>((nil, false))
    /// A signal that nobody takes within this long ends the process as it would have without a handler.
    public static let unheardSignalDeadline: TimeInterval = 3

    /// Catches SIGINT and SIGTERM from now on and calls `onSignal` on a thread of its own for each one; a signal
    /// caught before (see ``catchSignals()``) is handed over at once.
    public static func install(_ onSignal: @escaping @Sendable () -> Void) {
        catchSignals()
        let pending = listener.withLockedValue { state -> Bool in
            defer { state = (onSignal, false) }
            return state.pending
        }
        if pending { onSignal() }
    }

    /// Catches SIGINT and SIGTERM before a program's service group runs (a session starting already answers
    /// peers): a signal then waits for ``install(_:)``, so that it still ends the program gracefully, or ends the
    /// process after ``unheardSignalDeadline`` when nothing takes it. Idempotent.
    public static func catchSignals() {
        guard writeEnd == -1 else { return }
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
                    deliver(Int32(byte))
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
            action.__sigaction_handler.sa_handler = { signalNumber in
                var byte = UInt8(truncatingIfNeeded: signalNumber)
                _ = write(ShutdownSignals.writeEnd, &byte, 1)
            }
            #else
            action.__sigaction_u.__sa_handler = { signalNumber in
                var byte = UInt8(truncatingIfNeeded: signalNumber)
                _ = write(ShutdownSignals.writeEnd, &byte, 1)
            }
            #endif
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(signalNumber, &action, nil)
        }
    }

    /// Hands a caught signal to the listener, or keeps it for the one to come.
    private static func deliver(_ signalNumber: Int32) {
        let onSignal = listener.withLockedValue { state -> (@Sendable () -> Void)? in
            if state.onSignal == nil { state.pending = true }
            return state.onSignal
        }
        if let onSignal {
            onSignal()
            return
        }
        Thread.sleep(forTimeInterval: unheardSignalDeadline)
        if listener.withLockedValue({ $0.onSignal == nil }) { exit(128 + signalNumber) }
    }
}
