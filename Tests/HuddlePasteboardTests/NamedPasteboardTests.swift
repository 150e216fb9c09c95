import Foundation
import Glibc
import HuddlePasteboard
import Synchronization
import Testing

/// A store in a fresh temporary directory, removed afterwards.
struct TemporaryStore: ~Copyable {
    let root: URL
    let store: NamedPasteboardStore

    init() {
        self.root = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-named-\(UUID().uuidString)")
        self.store = NamedPasteboardStore(
            sessionDirectory: self.root.appendingPathComponent("run/huddle/pasteboards"),
            persistentDirectory: self.root.appendingPathComponent("data/huddle/pasteboards")
        )
    }

    deinit { try? FileManager.default.removeItem(at: self.root) }
}

func permissions(_ path: String) -> mode_t {
    var info = stat()
    stat(path, &info)
    return info.st_mode & 0o777
}

@Suite("Named pasteboards")
struct NamedPasteboardTests {
    @Test("write then read in another store instance; file 0600, directory 0700, no stray files")
    func roundTripAndPermissions() throws {
        let temporary = TemporaryStore()
        var item = PasteboardItem(text: "hand-off")
        item.setData(pngLikeData(bytes: 1000), for: .png)
        try temporary.store.write(item, name: "com.example.handoff")
        let reopened = NamedPasteboardStore(
            sessionDirectory: temporary.store.sessionDirectory,
            persistentDirectory: temporary.store.persistentDirectory
        )
        #expect(try reopened.read(name: "com.example.handoff") == item)
        #expect(try reopened.read(name: "com.example.handoff") == item, "read does not clear")
        let file = temporary.store.sessionDirectory.appendingPathComponent("com.example.handoff.hpb").path
        #expect(permissions(file) == 0o600)
        #expect(permissions(temporary.store.sessionDirectory.path) == 0o700)
        let entries = try FileManager.default.contentsOfDirectory(atPath: temporary.store.sessionDirectory.path)
            .sorted()
        #expect(entries == [".com.example.handoff.lock", "com.example.handoff.hpb"])
    }

    @Test("read-and-clear hands the item to exactly one reader")
    func readAndClear() throws {
        let temporary = TemporaryStore()
        try temporary.store.write(PasteboardItem(text: "once"), name: "once")
        #expect(try temporary.store.readAndClear(name: "once").string == "once")
        let error = try #require(throws: PasteboardError.self) { try temporary.store.readAndClear(name: "once") }
        #expect(error.code == .notFound)
        #expect(error.message == "no pasteboard named \"once\"")
    }

    @Test("many threads read-and-clear one item: exactly one of them gets it")
    func readAndClearRace() throws {
        let temporary = TemporaryStore()
        let store = temporary.store
        for round in 0..<20 {
            try store.write(PasteboardItem(text: "round \(round)"), name: "race")
            let winners = Mutex(0)
            // Threads, not tasks: flock blocks, and blocking belongs off the cooperative pool.
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                if (try? store.readAndClear(name: "race")) != nil { winners.withLock { $0 += 1 } }
            }
            #expect(winners.withLock { $0 } == 1, "round \(round)")
        }
    }

    @Test("persistent pasteboards survive a restart (new store); session ones live in the runtime directory")
    func persistence() throws {
        let temporary = TemporaryStore()
        try temporary.store.write(PasteboardItem(text: "keep"), name: "keep", persistent: true)
        try temporary.store.write(PasteboardItem(text: "session"), name: "session")
        #expect(
            FileManager.default.fileExists(
                atPath: temporary.store.persistentDirectory.appendingPathComponent("keep.hpb").path
            )
        )
        // Logout empties the runtime directory; the persistent one stays.
        try FileManager.default.removeItem(at: temporary.store.sessionDirectory)
        let restarted = NamedPasteboardStore(
            sessionDirectory: temporary.store.sessionDirectory,
            persistentDirectory: temporary.store.persistentDirectory
        )
        #expect(try restarted.read(name: "keep").string == "keep")
        #expect(throws: PasteboardError.self) { try restarted.read(name: "session") }
        // Rewriting as a session pasteboard moves it: a name lives in one place.
        try restarted.write(PasteboardItem(text: "moved"), name: "keep")
        #expect(try restarted.list().map(\.persistent) == [false])
    }

    @Test("concurrent writers never tear an item: every read is one complete write")
    func concurrentWriters() throws {
        let temporary = TemporaryStore()
        let store = temporary.store
        let size = 256 << 10
        try store.write(PasteboardItem(type: .png, data: Data(repeating: 0, count: size)), name: "busy")
        let torn = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 5) { worker in
            if worker == 0 {
                for _ in 0..<60 {
                    let data = try? store.read(name: "busy").data(for: .png)
                    if data == nil || data!.count != size || Set(data!).count != 1 { torn.withLock { $0 += 1 } }
                }
            } else {
                for _ in 0..<15 {
                    try? store.write(
                        PasteboardItem(type: .png, data: Data(repeating: UInt8(worker), count: size)),
                        name: "busy"
                    )
                }
            }
        }
        #expect(torn.withLock { $0 } == 0)
        let last = try #require(try store.read(name: "busy").data(for: .png))
        #expect(last.count == size && Set(last).count == 1 && (1...4).contains(last.first!))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.sessionDirectory.path).filter {
            $0.hasSuffix(".tmp")
        }
        #expect(leftovers.isEmpty)
    }

    @Test("an expired pasteboard reads as expired once, then is gone; list leaves it out")
    func expiry() throws {
        let temporary = TemporaryStore()
        let now = Date()
        try temporary.store.write(PasteboardItem(text: "soon"), name: "soon", expires: now.addingTimeInterval(60))
        try temporary.store.write(PasteboardItem(text: "later"), name: "later", expires: now.addingTimeInterval(3600))
        #expect(try temporary.store.read(name: "soon", now: now).string == "soon")
        #expect(try temporary.store.list(now: now.addingTimeInterval(120)).map(\.name) == ["later"])
        let error = try #require(throws: PasteboardError.self) {
            try temporary.store.read(name: "soon", now: now.addingTimeInterval(120))
        }
        #expect(error.code == .notFound)
        #expect(try temporary.store.read(name: "later", now: now.addingTimeInterval(120)).string == "later")
    }

    @Test(
        "names that are empty, too long, hidden or paths are refused",
        arguments: ["", "../etc", "a/b", ".hidden", "spa ce", String(repeating: "x", count: 129)]
    )
    func badNames(name: String) throws {
        let temporary = TemporaryStore()
        let error = try #require(throws: PasteboardError.self) {
            try temporary.store.write(PasteboardItem(text: "x"), name: name)
        }
        #expect(error.code == .invalidName)
    }

    @Test("list and remove")
    func listAndRemove() throws {
        let temporary = TemporaryStore()
        try temporary.store.write(PasteboardItem(text: "b").markedSecret(), name: "b")
        try temporary.store.write(PasteboardItem(type: .png, data: Data([1, 2, 3])), name: "a", persistent: true)
        let list = try temporary.store.list()
        #expect(list.map(\.name) == ["a", "b"])
        #expect(list.map(\.persistent) == [true, false])
        #expect(list[0].types == [.png] && list[0].byteCount == 3 && !list[0].isSecret)
        #expect(list[1].isSecret)
        #expect(try temporary.store.remove(name: "a"))
        #expect(try !temporary.store.remove(name: "a"))
        #expect(try temporary.store.list().map(\.name) == ["b"])
    }
}
