import Foundation
import HuddleErrors
import HuddleTestSupport
import Testing

@testable import HuddleDaemon

/// The outbox on disk: every change written atomically, kept across a restart, never thrown away.
@Suite("Outbox on disk")
struct OutboxStoreTests {
    func entry(_ id: String, _ path: String = "/files/a.bin") -> OutboxEntry {
        OutboxEntry(
            id: id,
            recipient: "Bob",
            deviceID: "DEVICE",
            path: path,
            queuedAt: Date(timeIntervalSince1970: 1_800_000_000)
        )
    }

    @Test("entries added, failed and removed are read back by a new store, in order; the file is 0600")
    func persists() throws {
        try withScratchDirectory { directory in
            let file = directory.appendingPathComponent("outbox.json")
            let store = try OutboxStore(file: file)
            #expect(store.entries.isEmpty)
            try store.add([entry("00000001"), entry("00000002", "/files/b.bin")])
            try store.failed("00000002", error: "could not connect")
            let reread = try OutboxStore(file: file)
            #expect(reread.entries.map(\.id) == ["00000001", "00000002"])
            #expect(reread.entries[1].attempts == 1)
            #expect(reread.entries[1].lastError == "could not connect")
            #expect(reread.entries[0].queuedAt == Date(timeIntervalSince1970: 1_800_000_000))
            #expect(try reread.remove("00000001"))
            #expect(try !reread.remove("00000001"))
            #expect(try OutboxStore(file: file).entries.map(\.path) == ["/files/b.bin"])
            let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    @Test("an entry the page uploaded takes its upload folder with it when it leaves; other files are left alone")
    func uploadsGo() throws {
        try withScratchDirectory { directory in
            let store = try OutboxStore(file: directory.appendingPathComponent("outbox.json"))
            let folder = store.uploads.appendingPathComponent("0a1b2c3d4e5f6a7b")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let uploaded = folder.appendingPathComponent("photo.jpg")
            let own = directory.appendingPathComponent("own.bin")
            for file in [uploaded, own] { try Data("x".utf8).write(to: file) }
            try store.add([entry("00000001", uploaded.path), entry("00000002", own.path)])
            #expect(try store.remove("00000001"))
            #expect(!FileManager.default.fileExists(atPath: folder.path))
            #expect(FileManager.default.fileExists(atPath: store.uploads.path))
            #expect(try store.remove("00000002"))
            #expect(FileManager.default.fileExists(atPath: own.path))
        }
    }

    @Test("an outbox that cannot be read is refused and left as it was")
    func unreadable() throws {
        try withScratchDirectory { directory in
            let file = directory.appendingPathComponent("outbox.json")
            let garbage = Data("{\"version\": 1, \"entries\": [{\"id\": 3}]}".utf8)
            try garbage.write(to: file)
            #expect {
                _ = try OutboxStore(file: file)
            } throws: { error in
                (error as? DaemonError)?.code == .storage
            }
            #expect(try Data(contentsOf: file) == garbage)
            try Data("{\"version\": 2, \"entries\": []}".utf8).write(to: file)
            #expect(throws: DaemonError.self) { _ = try OutboxStore(file: file) }
        }
    }

    @Test("a write that fails leaves the queue in memory as it is on disk")
    func failedWrite() throws {
        try withScratchDirectory { directory in
            let folder = directory.appendingPathComponent("data")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            let store = try OutboxStore(file: folder.appendingPathComponent("outbox.json"))
            try store.add([entry("00000001")])
            try FileManager.default.removeItem(at: folder)
            #expect(throws: DaemonError.self) { try store.add([entry("00000002")]) }
            #expect(store.entries.map(\.id) == ["00000001"])
        }
    }
}

/// Runs `body` with a scratch directory of its own, removed afterwards even when the body throws.
func withScratchDirectory(_ label: String = #function, _ body: (URL) throws -> Void) throws {
    let scratch = try ScratchDirectory(label)
    defer { scratch.remove() }
    try body(scratch.url)
}
