#if os(Linux)
import Foundation
import Glibc
import HuddlePasteboard

/// Starts `huddle pb serve` in a new session (it survives the terminal closing) and hands it the item.
///
/// The item goes through a pipe to the child's standard input in the ``PasteboardItemArchive`` format; the child
/// answers `ready` once it owns the selection (or `error: …`), so `copy` returns only when a paste will work.
/// The child's standard error is /dev/null and its standard output is closed after the answer, so a pipe reading
/// `huddle pb copy`'s output sees end-of-file at once instead of waiting for the owner to end.
enum BackgroundOwner {
    static func start(item: PasteboardItem, selection: PasteboardSelection) throws {
        let executable = ExecutableOption.running
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        guard pipe(&input) == 0, pipe(&output) == 0 else {
            throw PasteboardError(.storage, "cannot make a pipe for the background owner")
        }
        // Close-on-exec, so a child started by another thread never inherits them (dup2 clears it for the ends
        // this child gets).
        for fd in input + output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        addCloseOtherDescriptors(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // glibc's POSIX_SPAWN_SETSID (2.26+), not exported to Swift: the child starts a new session.
        posix_spawnattr_setflags(&attributes, 0x80)
        let arguments = [executable, "pb", "serve"] + (selection == .primary ? ["--primary"] : [])
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        close(input[0])
        close(output[1])
        guard status == 0 else {
            close(input[1])
            close(output[0])
            throw PasteboardError(.storage, "cannot start the background owner: \(String(cString: strerror(status)))")
        }
        let writer = FileHandle(fileDescriptor: input[1], closeOnDealloc: true)
        try? writer.write(contentsOf: PasteboardItemArchive(item: item).encoded())
        try? writer.close()
        let reader = FileHandle(fileDescriptor: output[0], closeOnDealloc: true)
        let answer = String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        guard answer.hasPrefix("ready") else {
            var code: Int32 = 0
            waitpid(pid, &code, 0)
            let message = answer.hasPrefix("error: ") ? String(answer.dropFirst(7)) : "it exited without answering"
            throw PasteboardError(
                .transferFailed,
                "the background owner failed: " + message.trimmingCharacters(in: .newlines)
            )
        }
    }
}
#endif
