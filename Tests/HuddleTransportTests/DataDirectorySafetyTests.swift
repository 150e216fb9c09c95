import Foundation
import Huddle
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The data directory and `trust.json` are trusted only when this user owns them and nobody else can write to them:
/// another local user who made `/tmp/ada/trust.json` first could otherwise pin a key of their own and connect
/// without a code.
@Suite("Data directory and trust file ownership")
struct DataDirectorySafetyTests {
    /// Giving a file to another user takes root. With `CI=true` the tests run anyway, and fail, rather than pass
    /// without having run.
    static let canChown = geteuid() == 0 || ProcessInfo.processInfo.environment["CI"] == "true"
    static let otherUser: uid_t = 4242

    static func owner(of url: URL) -> uid_t {
        var info = stat()
        return lstat(url.path, &info) == 0 ? info.st_uid : .max
    }

    /// A trust file pinning `pinned`, written by a store of its own, as another user would plant it.
    static func plantTrustFile(in directory: URL, pinning pinned: DeviceID) throws -> URL {
        try TrustStore(directory: directory).set(.verified, for: pinned, displayName: "planted")
        return TrustStoreTests.file(in: directory)
    }

    static func expectRefused(_ store: TrustStore, file: URL, planted: DeviceID, contents: Data) throws {
        let reason = try #require(store.lockedReason, "the store must refuse the file")
        #expect(reason.contains(file.path))
        #expect(!store.isPinned(planted) && store.records.isEmpty, "nothing in it is trusted")
        #expect(throws: TrustStoreError.locked(reason)) {
            try store.set(.verified, for: try TrustStoreTests.id(77), displayName: "mine")
        }
        #expect(try Data(contentsOf: file) == contents, "and it is not overwritten")
    }

    @Test(.enabled(if: canChown, "needs root to give a file to another user; with CI=true it fails instead"))
    func trustFileOwnedByAnotherUserIsRefused() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let planted = try TrustStoreTests.id(9)
        let file = try Self.plantTrustFile(in: temporary.url, pinning: planted)
        try #require(chown(file.path, Self.otherUser, Self.otherUser) == 0, "chown needs root")
        let contents = try Data(contentsOf: file)

        let store = TrustStore(directory: temporary.url)
        try Self.expectRefused(store, file: file, planted: planted, contents: contents)
        #expect(store.lockedReason?.contains("\(Self.otherUser)") == true, "the reason names the owner")
        #expect(Self.owner(of: file) == Self.otherUser)
    }

    @Test func trustFileWritableByOthersIsRefused() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let planted = try TrustStoreTests.id(9)
        let file = try Self.plantTrustFile(in: temporary.url, pinning: planted)
        for mode in [0o666, 0o620] {
            try ScratchDirectory.setMode(mode, of: file)
            let contents = try Data(contentsOf: file)
            try Self.expectRefused(
                TrustStore(directory: temporary.url),
                file: file,
                planted: planted,
                contents: contents
            )
        }
        // Closed again by its owner, it is read as before.
        try ScratchDirectory.setMode(0o600, of: file)
        #expect(TrustStore(directory: temporary.url).isPinned(planted))
    }

    @Test(.enabled(if: canChown, "needs root to give a directory to another user; with CI=true it fails instead"))
    func dataDirectoryOwnedByAnotherUserIsRefused() async throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let planted = try TrustStoreTests.id(9)
        let file = try Self.plantTrustFile(in: temporary.url, pinning: planted)
        try #require(chown(temporary.url.path, Self.otherUser, Self.otherUser) == 0, "chown needs root")
        let contents = try Data(contentsOf: file)

        try Self.expectRefused(TrustStore(directory: temporary.url), file: file, planted: planted, contents: contents)
        #expect(throws: IdentityError.self) { try DeviceIdentity.loadOrCreate(in: temporary.url) }
        #expect(!FileManager.default.fileExists(atPath: temporary.url.appendingPathComponent("identity").path))

        // `HUDDLE_HOME=/tmp/ada huddle chat` where another user made /tmp/ada: the session does not start.
        var configuration = PeerSessionConfiguration()
        configuration.dataDirectory = temporary.url
        configuration.listenHost = "127.0.0.1"
        await #expect(throws: IdentityError.self) {
            _ = try await PeerSession.loadingIdentity(
                sessionID: "TypingTogether",
                displayName: "Ada",
                configuration: configuration,
                directory: InMemoryPeerDirectory()
            )
        }
    }

    /// Whoever planted the key knows it, and could pass for this device.
    @Test(.enabled(if: canChown, "needs root to give a file to another user; with CI=true it fails instead"))
    func keyFileOwnedByAnotherUserIsRefused() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        _ = try DeviceIdentity.loadOrCreate(in: temporary.url)
        let file = temporary.url.appendingPathComponent("identity/key.pem")
        try #require(chown(file.path, Self.otherUser, Self.otherUser) == 0, "chown needs root")
        #expect(throws: IdentityError.keyFileNotOwned(path: file.path, owner: Int(Self.otherUser))) {
            try DeviceIdentity.loadOrCreate(in: temporary.url)
        }
    }

    @Test func dataDirectoryWritableByOthersIsRefused() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let planted = try TrustStoreTests.id(9)
        let file = try Self.plantTrustFile(in: temporary.url, pinning: planted)
        try ScratchDirectory.setMode(0o777, of: temporary.url)
        let contents = try Data(contentsOf: file)
        try Self.expectRefused(TrustStore(directory: temporary.url), file: file, planted: planted, contents: contents)
        #expect(throws: IdentityError.self) { try DeviceIdentity.loadOrCreate(in: temporary.url) }
    }

    @Test func parentOpenToOthersWithoutTheStickyBitIsRefused() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let home = temporary.url.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
        let planted = try TrustStoreTests.id(9)
        let file = try Self.plantTrustFile(in: home, pinning: planted)
        let contents = try Data(contentsOf: file)
        // Anyone could rename `home` away and put another in its place.
        try ScratchDirectory.setMode(0o777, of: temporary.url)
        try Self.expectRefused(TrustStore(directory: home), file: file, planted: planted, contents: contents)
        // With the sticky bit, as /tmp has it, only the owner may rename it.
        try ScratchDirectory.setMode(0o1777, of: temporary.url)
        #expect(TrustStore(directory: home).isPinned(planted))
    }

    @Test func directoriesMadeForTheStoreArePrivate() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let data = temporary.url.appendingPathComponent("share/huddle")
        try TrustStore(directory: data).set(.verified, for: try TrustStoreTests.id(1), displayName: "x")
        #expect(try ScratchDirectory.mode(of: data) == 0o700)
        #expect(try ScratchDirectory.mode(of: data.deletingLastPathComponent()) == 0o700)
        let other = temporary.url.appendingPathComponent("key/huddle")
        _ = try DeviceIdentity.loadOrCreate(in: other)
        #expect(try ScratchDirectory.mode(of: other) == 0o700)
        #expect(try ScratchDirectory.mode(of: other.deletingLastPathComponent()) == 0o700)
        #expect(try ScratchDirectory.mode(of: other.appendingPathComponent("identity")) == 0o700)
    }
}

/// Where the data directory is when `--data-dir` is not given.
@Suite("Default data directory")
struct DataDirectoryResolutionTests {
    static func resolve(_ environment: [String: String]) -> String {
        DataDirectory.resolve(environment: environment, passwordDatabaseHome: { "/home/from-passwd" }).path
    }

    @Test func homeFromTheEnvironmentWinsOverThePasswordDatabase() {
        #expect(Self.resolve(["HOME": "/x"]) == "/x/.local/share/huddle")
    }

    @Test func orderOfTheVariables() {
        #expect(Self.resolve(["HUDDLE_HOME": "/h", "XDG_DATA_HOME": "/d", "HOME": "/x"]) == "/h")
        #expect(Self.resolve(["XDG_DATA_HOME": "/d", "HOME": "/x"]) == "/d/huddle")
        #expect(Self.resolve(["HUDDLE_HOME": "", "XDG_DATA_HOME": "", "HOME": "/x"]) == "/x/.local/share/huddle")
        // The XDG Base Directory Specification says a relative path in XDG_DATA_HOME is to be ignored.
        #expect(Self.resolve(["XDG_DATA_HOME": "data", "HOME": "/x"]) == "/x/.local/share/huddle")
        #expect(Self.resolve(["HOME": ""]) == "/home/from-passwd/.local/share/huddle")
        #expect(Self.resolve([:]) == "/home/from-passwd/.local/share/huddle")
    }
}
