import Foundation

#if canImport(Glibc)
package import Glibc
#elseif canImport(Darwin)
package import Darwin
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

/// Adds actions that close every descriptor above 2 in a child started with `posix_spawn`, so a child that
/// outlives us (a background clipboard owner) holds nothing of ours open: a parent waiting for end-of-file on a
/// descriptor it gave us (a shell's `$(…)`, Foundation's `Process`, which watches a socket its child inherits)
/// would otherwise wait as long as that child lives.
///
/// Uses `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34) when present, looked up at run time; otherwise
/// closes each descriptor listed in /proc/self/fd (glibc ignores a close action for one closed meanwhile).
package func addCloseOtherDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    #if os(Linux)
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        return
    }
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for fd in entries.compactMap({ Int32($0) }) where fd > 2 {
        posix_spawn_file_actions_addclose(&actions, fd)
    }
    #endif
}

/// `write(2)`, under a name that no Swift method shadows.
func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
