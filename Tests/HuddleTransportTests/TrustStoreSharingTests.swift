import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

/// Several stores on one `trust.json`, as when `huddle trust block` runs beside a session: every change is made to
/// what is on disk at that moment, and each store sees the others' changes.
@Suite("Trust store shared between processes")
struct TrustStoreSharingTests {
    static func id(_ seed: UInt8) throws -> DeviceID { try TrustStoreTests.id(seed) }

    @Test func blockByAnotherStoreSurvivesAnUnrelatedChange() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let (x, y) = (try Self.id(1), try Self.id(2))
        let s1 = TrustStore(directory: temporary.url)
        try s1.set(.verified, for: x, displayName: "x")
        try s1.set(.verified, for: y, displayName: "y")

        try TrustStore(directory: temporary.url).set(.blocked, for: x, displayName: "x")
        try s1.touch(y, displayName: "y again", version: 2)

        let fresh = TrustStore(directory: temporary.url)
        #expect(fresh.isBlocked(x), "the stale copy in s1 did not write over the block")
        #expect(fresh.record(for: y)?.displayName == "y again", "and s1's own change is there too")
        #expect(s1.isBlocked(x), "s1 read the file again for its change")
    }

    @Test func forgetByAnotherStoreSurvivesAnUnrelatedChange() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let (x, y) = (try Self.id(1), try Self.id(2))
        let s1 = TrustStore(directory: temporary.url)
        try s1.set(.verified, for: x, displayName: "x")
        try s1.set(.tofu, for: y, displayName: "y")

        try TrustStore(directory: temporary.url).forget(x)
        try s1.set(.verified, for: y, displayName: "y")

        let fresh = TrustStore(directory: temporary.url)
        #expect(fresh.record(for: x) == nil, "x must pair again")
        #expect(fresh.record(for: y)?.trust == .verified)
        #expect(s1.record(for: x) == nil)
    }

    @Test func reloadPicksUpAnotherStoresChanges() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let (x, y) = (try Self.id(1), try Self.id(2))
        let s1 = TrustStore(directory: temporary.url)
        try s1.set(.verified, for: x, displayName: "x")
        try s1.set(.verified, for: y, displayName: "y")
        #expect(!s1.reloadIfChanged(), "its own writes are not news")

        try TrustStore(directory: temporary.url).set(.blocked, for: x, displayName: "x")
        #expect(s1.isPinned(x), "reads come from memory until the next reload")
        #expect(s1.reloadIfChanged())
        #expect(s1.isBlocked(x) && !s1.isPinned(x))
        #expect(!s1.reloadIfChanged(), "nothing changed since")

        try TrustStore(directory: temporary.url).forget(y)
        #expect(s1.reloadIfChanged())
        #expect(s1.record(for: y) == nil)

        // A file removed by hand: nothing is trusted any more.
        try FileManager.default.removeItem(at: TrustStoreTests.file(in: temporary.url))
        #expect(s1.reloadIfChanged())
        #expect(s1.records.isEmpty && s1.lockedReason == nil)
    }

    @Test func reloadOfADamagedFileLocksAndARepairedOneUnlocks() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let x = try Self.id(1)
        let file = TrustStoreTests.file(in: temporary.url)
        let s1 = TrustStore(directory: temporary.url)
        try s1.set(.verified, for: x, displayName: "x")
        let good = try Data(contentsOf: file)

        try Data("{ damaged".utf8).write(to: file, options: .atomic)
        #expect(s1.reloadIfChanged())
        let reason = try #require(s1.lockedReason)
        #expect(reason.contains(file.path))
        #expect(!s1.isPinned(x), "a locked store trusts nothing")
        #expect(throws: TrustStoreError.locked(reason)) { try s1.touch(x, displayName: "x", version: 1) }
        #expect(try Data(contentsOf: file) == Data("{ damaged".utf8))

        try good.write(to: file, options: .atomic)
        #expect(s1.reloadIfChanged())
        #expect(s1.lockedReason == nil && s1.isPinned(x))
    }

    /// Two stores (two processes, in effect) adding devices at once: none is lost, because each change re-reads
    /// the file under the lock.
    @Test(.timeLimit(.minutes(1)))
    func concurrentChangesFromTwoStoresLoseNothing() async throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let stores = [TrustStore(directory: temporary.url), TrustStore(directory: temporary.url)]
        let perStore = 24
        let ids = try (0..<(2 * perStore)).map { try Self.id(UInt8($0 * 5)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, id) in ids.enumerated() {
                let store = stores[index % 2]
                group.addTask { try store.set(.verified, for: id, displayName: "peer \(index)") }
            }
            try await group.waitForAll()
        }
        let fresh = TrustStore(directory: temporary.url)
        #expect(fresh.lockedReason == nil)
        #expect(Set(fresh.records.map(\.deviceID)) == Set(ids.map(\.description)))
        #expect(try ScratchDirectory.temporaryFiles(in: temporary.url).isEmpty)
    }
}
