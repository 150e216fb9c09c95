#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `strerror`, kept in one place so callers need no C import.
func strerrorText(_ number: Int32) -> UnsafeMutablePointer<CChar> {
    strerror(number)
}

/// A pipe whose ends are closed in child processes (`FD_CLOEXEC`), so a helper started by another thread never
/// holds one open.
func closeOnExecPipe() -> (read: Int32, write: Int32)? {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return nil }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return (fds[0], fds[1])
}
