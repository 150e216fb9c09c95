import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program to its end with `posix_spawn` and `poll`, killed at a deadline. Not Foundation's `Process`: that
/// waits for the child through a CFSocket, which cannot be set up in a network namespace whose loopback is down,
/// and `huddle doctor` must not hang where the network is at its worst.
enum ChildProgram {
    /// A program's exit status (128 + the signal when a signal ended it) and output.
    struct Result: Sendable {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs `path` with `arguments`, standard input from /dev/null; nil when it could not be started.
    static func run(_ path: String, _ arguments: [String], timeout: Double) -> Result? {
        guard let output = Self.closeOnExecPipe(), let errors = Self.closeOnExecPipe() else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errors.write, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let started = posix_spawn(&pid, path, &actions, nil, argv, environ)
        close(output.write)
        close(errors.write)
        defer {
            close(output.read)
            close(errors.read)
        }
        guard started == 0 else { return nil }
        let (out, err) = Self.readBoth(output.read, errors.read, until: Date().addingTimeInterval(timeout), pid: pid)
        var exit: Int32 = 0
        while waitpid(pid, &exit, 0) < 0 && errno == EINTR {}
        return Result(
            status: (exit & 0x7F) == 0 ? (exit >> 8) & 0xFF : 128 + (exit & 0x7F),
            output: String(decoding: out, as: UTF8.self),
            error: String(decoding: err, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        )
    }

    /// Reads two descriptors to their ends; at the deadline the child is killed and what came so far is kept.
    private static func readBoth(
        _ first: Int32,
        _ second: Int32,
        until deadline: Date,
        pid: pid_t
    ) -> ([UInt8], [UInt8]) {
        var fds = [
            pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second, events: Int16(POLLIN), revents: 0),
        ]
        var data: [[UInt8]] = [[], []]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while fds.contains(where: { $0.fd >= 0 }) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else {
                kill(pid, SIGKILL)
                break
            }
            guard poll(&fds, 2, Int32(min(left, 60) * 1000) + 1) >= 0 || errno == EINTR else { break }
            for index in 0..<2 where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = read(fds[index].fd, &buffer, buffer.count)
                if count > 0 {
                    data[index] += buffer[0..<count]
                } else if count == 0 || errno != EINTR {
                    fds[index].fd = -1
                }
            }
        }
        return (data[0], data[1])
    }

    /// A pipe whose ends are closed on exec (the child's standard streams are dup2'd, which clears the flag).
    private static func closeOnExecPipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return (ends[0], ends[1])
    }
}
