import Foundation
import Glibc
import HuddlePasteboard
import Testing

/// Without `XDG_RUNTIME_DIR`, session pasteboards live under `/tmp/huddle-<uid>`, a name any local user can take
/// first. These tests put that fallback under a temporary directory of their own instead of the real /tmp.
@Suite("Named pasteboards: the /tmp fallback")
struct NamedPasteboardFallbackTests {
    /// Giving a directory to another user takes root. With `CI=true` the tests run anyway, and fail, rather than
    /// pass without having run.
    static let canChown = geteuid() == 0 || ProcessInfo.processInfo.environment["CI"] == "true"
    static let otherUser: uid_t = 4242

    /// A base directory standing in for /tmp, and a store whose fallback is under it.
    struct Fallback: ~Copyable {
        let base: URL
        let store: NamedPasteboardStore
        /// `<base>/huddle-<uid>`.
        var root: URL { base.appendingPathComponent("huddle-\(getuid())") }

        init() throws {
            base = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-fallback-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: base, withIntermediateDirectories: false)
            chmod(base.path, 0o1777)
            store = NamedPasteboardStore(
                environment: ["HOME": base.appendingPathComponent("home").path],
                temporaryDirectory: base
            )
        }

        deinit { try? FileManager.default.removeItem(at: base) }
    }

    static func info(_ url: URL) -> stat? {
        var info = stat()
        return lstat(url.path, &info) == 0 ? info : nil
    }

    /// `body` is refused with a storage error naming `path`.
    static func expectRefused(_ path: URL, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected a refusal because of \(path.path)")
        } catch let error as PasteboardError {
            #expect(error.code == .storage)
            #expect(error.message.contains(path.path), "\(error.message)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func fallbackIsUsedAndMadePrivate() throws {
        let fallback = try Fallback()
        #expect(fallback.store.sessionDirectory.path == fallback.root.path + "/huddle/pasteboards")
        try fallback.store.write(PasteboardItem(text: "hand-off"), name: "x")
        #expect(try fallback.store.read(name: "x") == PasteboardItem(text: "hand-off"))
        for directory in [
            fallback.root, fallback.root.appendingPathComponent("huddle"), fallback.store.sessionDirectory,
        ] {
            let info = try #require(Self.info(directory))
            #expect(info.st_mode & S_IFMT == S_IFDIR && info.st_mode & 0o7777 == 0o700, "\(directory.path)")
            #expect(info.st_uid == getuid())
        }
    }

    @Test(.enabled(if: canChown, "needs root to give a directory to another user; with CI=true it fails instead"))
    func fallbackOwnedByAnotherUserIsRefused() throws {
        let fallback = try Fallback()
        try FileManager.default.createDirectory(at: fallback.root, withIntermediateDirectories: false)
        chmod(fallback.root.path, 0o700)
        try #require(chown(fallback.root.path, Self.otherUser, Self.otherUser) == 0, "chown needs root")
        Self.expectRefused(fallback.root) { try fallback.store.write(PasteboardItem(text: "mine"), name: "x") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: fallback.root.path).isEmpty, "nothing made in it")
    }

    @Test(arguments: [0o777, 0o755, 0o1777, 0o2700])
    func fallbackWithAnotherModeIsRefused(mode: Int) throws {
        let fallback = try Fallback()
        try FileManager.default.createDirectory(at: fallback.root, withIntermediateDirectories: false)
        chmod(fallback.root.path, mode_t(mode))
        Self.expectRefused(fallback.root) { try fallback.store.write(PasteboardItem(text: "mine"), name: "x") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: fallback.root.path).isEmpty, "nothing made in it")
    }

    @Test func fallbackThatIsASymbolicLinkIsRefused() throws {
        let fallback = try Fallback()
        // Even to a private directory: whoever made the link can point it elsewhere later.
        let target = fallback.base.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        chmod(target.path, 0o700)
        try FileManager.default.createSymbolicLink(at: fallback.root, withDestinationURL: target)
        Self.expectRefused(fallback.root) { try fallback.store.write(PasteboardItem(text: "mine"), name: "x") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)
    }

    /// A pasteboard planted under another user's `huddle` directory inside the fallback is neither read nor written.
    @Test(.enabled(if: canChown, "needs root to give a directory to another user; with CI=true it fails instead"))
    func componentOwnedByAnotherUserIsRefused() throws {
        let fallback = try Fallback()
        let planter = NamedPasteboardStore(
            sessionDirectory: fallback.store.sessionDirectory,
            persistentDirectory: fallback.base.appendingPathComponent("planter")
        )
        try planter.write(PasteboardItem(text: "forged"), name: "x")
        chmod(fallback.root.path, 0o700)
        let huddle = fallback.root.appendingPathComponent("huddle")
        chmod(huddle.path, 0o777)
        try #require(chown(huddle.path, Self.otherUser, Self.otherUser) == 0, "chown needs root")
        Self.expectRefused(huddle) { _ = try fallback.store.read(name: "x") }
        Self.expectRefused(huddle) { try fallback.store.write(PasteboardItem(text: "mine"), name: "y") }
    }

    @Test func fallbackUnderABaseOpenToOthersWithoutTheStickyBitIsRefused() throws {
        let fallback = try Fallback()
        chmod(fallback.base.path, 0o777)
        Self.expectRefused(fallback.base) { try fallback.store.write(PasteboardItem(text: "mine"), name: "x") }
    }

    @Test func runtimeDirectoryIsPreferredOverTheFallback() throws {
        let store = NamedPasteboardStore(
            environment: ["HOME": "/home/ada", "XDG_RUNTIME_DIR": "/run/user/1000"],
            temporaryDirectory: URL(fileURLWithPath: "/unused")
        )
        #expect(store.sessionDirectory.path == "/run/user/1000/huddle/pasteboards")
        #expect(store.persistentDirectory.path == "/home/ada/.local/share/huddle/pasteboards")
    }
}
