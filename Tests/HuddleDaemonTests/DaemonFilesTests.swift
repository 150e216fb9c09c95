import Foundation
import HuddleErrors
import HuddleTestSupport
import Testing

@testable import HuddleDaemon

#if canImport(Glibc)
import Glibc
#endif

/// Where a daemon keeps its socket and lock, and the one-daemon-per-data-directory lock (docs/daemon.md, "Files").
@Suite("Daemon files")
struct DaemonFilesTests {
    @Test("the socket is in XDG_RUNTIME_DIR/huddle, named after the data directory; /tmp/huddle-UID without it")
    func paths() {
        let ada = URL(fileURLWithPath: "/home/ada/.local/share/huddle")
        let paths = DaemonPaths(dataDirectory: ada, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], uid: 1000)
        #expect(paths.runtimeDirectory == "/run/user/1000/huddle")
        #expect(paths.controlSocket.hasPrefix("/run/user/1000/huddle/daemon-"))
        #expect(paths.controlSocket.hasSuffix(".sock"))
        #expect(paths.lockFile == "/home/ada/.local/share/huddle/daemon.lock")
        #expect(paths.outboxFile == "/home/ada/.local/share/huddle/outbox.json")
        let same = DaemonPaths(
            dataDirectory: URL(fileURLWithPath: "/home/ada/.local/share/./huddle"),
            environment: ["XDG_RUNTIME_DIR": "/run/user/1000"],
            uid: 1000
        )
        #expect(same.controlSocket == paths.controlSocket)
        let other = DaemonPaths(
            dataDirectory: URL(fileURLWithPath: "/home/ada/other"),
            environment: ["XDG_RUNTIME_DIR": "/run/user/1000"],
            uid: 1000
        )
        #expect(other.controlSocket != paths.controlSocket)
        let fallback = DaemonPaths(dataDirectory: ada, environment: ["XDG_RUNTIME_DIR": "relative"], uid: 1000)
        #expect(fallback.runtimeDirectory == "/tmp/huddle-1000/huddle")
    }

    @Test("the runtime folder is made 0700, and one that others may enter is refused")
    func runtimeFolder() throws {
        try withScratchDirectory { directory in
            let paths = DaemonPaths(
                dataDirectory: directory,
                environment: ["XDG_RUNTIME_DIR": directory.path],
                uid: getuid()
            )
            try paths.makeRuntimeDirectory()
            let mode = try FileManager.default.attributesOfItem(atPath: paths.runtimeDirectory)[.posixPermissions]
            #expect(mode as? Int == 0o700)
            chmod(paths.runtimeDirectory, 0o755)
            #expect {
                try paths.makeRuntimeDirectory()
            } throws: { error in
                (error as? DaemonError)?.code == .unsafeRuntimeDirectory
            }
        }
    }

    @Test("a second lock on one data directory is refused, naming the holder; once let go it is taken again")
    func lock() throws {
        try withScratchDirectory { directory in
            let path = directory.appendingPathComponent("daemon.lock").path
            var first: DaemonLock? = try DaemonLock(path: path)
            #expect {
                _ = try DaemonLock(path: path)
            } throws: { error in
                let error = error as? DaemonError
                return error?.code == .alreadyRunning
                    && error?.message == "a daemon already runs for this data directory (process \(getpid()))"
            }
            #expect(first != nil)
            first = nil
            _ = try DaemonLock(path: path)
        }
    }
}
