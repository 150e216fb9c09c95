import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

/// The pins on disk (`docs/security.md` §3.3, §5 D8).
@Suite("Trust store on disk")
struct TrustStoreTests {
    static func id(_ seed: UInt8) throws -> DeviceID {
        try DeviceID(bytes: (0..<32).map { seed &+ UInt8($0) })
    }

    static func file(in directory: URL) -> URL { directory.appendingPathComponent("trust.json") }

    /// Whole seconds: the file keeps ISO 8601 dates without fractions.
    static let monday = Date(timeIntervalSince1970: 1_800_000_000)
    static let tuesday = Date(timeIntervalSince1970: 1_800_086_400)

    @Test func recordsSurviveAnotherInstance() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let (ada, bob, carl) = (try Self.id(1), try Self.id(2), try Self.id(3))
        let store = TrustStore(directory: temporary.url)
        #expect(store.lockedReason == nil && store.records.isEmpty)
        #expect(store.file == Self.file(in: temporary.url))
        try store.set(.verified, for: ada, displayName: "ada", version: 1, now: Self.monday)
        try store.set(.tofu, for: bob, displayName: "bob", version: 2, now: Self.monday)
        try store.set(.blocked, for: carl, displayName: "Carl", version: 1, now: Self.monday)
        try store.touch(ada, displayName: "zed", version: 3, now: Self.tuesday)
        try store.forget(bob)

        let reopened = TrustStore(directory: temporary.url)
        #expect(reopened.lockedReason == nil)
        #expect(reopened.records == store.records)
        #expect(reopened.records.map(\.displayName) == ["Carl", "zed"], "ordered by display name")
        let adaRecord = try #require(reopened.record(for: ada))
        #expect(adaRecord.deviceID == ada.description)
        #expect(adaRecord.trust == .verified)
        #expect(adaRecord.displayName == "zed")
        #expect(adaRecord.firstSeen == Self.monday && adaRecord.lastSeen == Self.tuesday)
        #expect(adaRecord.maximumVersionSeen == 3)
        #expect(reopened.record(for: bob) == nil)
        #expect(reopened.isPinned(ada) && !reopened.isBlocked(ada))
        #expect(reopened.isBlocked(carl) && !reopened.isPinned(carl))
        #expect(!reopened.isPinned(bob) && !reopened.isBlocked(bob))
        #expect(try ScratchDirectory.mode(of: Self.file(in: temporary.url)) == 0o600)
        #expect(try ScratchDirectory.temporaryFiles(in: temporary.url).isEmpty)
    }

    @Test func fileIsReadableJSON() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let store = TrustStore(directory: temporary.url)
        let ids = try (1...4).map { try Self.id(UInt8($0 * 40)) }
        for (index, id) in ids.reversed().enumerated() {
            try store.set(.tofu, for: id, displayName: "peer \(index)", version: 1, now: Self.monday)
        }
        let data = try Data(contentsOf: Self.file(in: temporary.url))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["version"] as? Int == 1)
        let devices = try #require(json["devices"] as? [[String: Any]])
        #expect(devices.count == 4)
        let written = devices.compactMap { $0["deviceID"] as? String }
        #expect(written == ids.map(\.description).sorted(), "records in the file are sorted by device ID")
        #expect(devices.allSatisfy { $0["trust"] as? String == "tofu" })
        #expect(devices.first?["firstSeen"] as? String == "2027-01-15T08:00:00Z")
        #expect(devices.first?["maximumVersionSeen"] as? Int == 1)
        #expect(String(decoding: data, as: UTF8.self).contains("\n  "), "pretty-printed")
    }

    @Test func setKeepsFirstSeenAndNeverLowersTheVersion() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let ada = try Self.id(9)
        let store = TrustStore(directory: temporary.url)
        try store.set(.tofu, for: ada, displayName: "ada", version: 4, now: Self.monday)
        try store.set(.verified, for: ada, displayName: "Ada", version: 2, now: Self.tuesday)
        let record = try #require(TrustStore(directory: temporary.url).record(for: ada))
        #expect(record.trust == .verified && record.displayName == "Ada")
        #expect(record.firstSeen == Self.monday && record.lastSeen == Self.tuesday)
        #expect(record.maximumVersionSeen == 4)
        // Touching a device that is not in the store adds nothing.
        try store.touch(try Self.id(10), displayName: "ghost", version: 1, now: Self.tuesday)
        #expect(TrustStore(directory: temporary.url).records.map(\.displayName) == ["Ada"])
    }

    @Test func storeInMemoryWritesNothing() throws {
        let store = TrustStore()
        #expect(store.file == nil)
        try store.set(.verified, for: try Self.id(1), displayName: "ada")
        #expect(store.isPinned(try Self.id(1)))
        try store.forget(try Self.id(1))
        #expect(store.records.isEmpty)
    }

    @Test(arguments: [
        Array("{ this is not json".utf8),
        Array("[]".utf8),
        Array(#"{"version": 1, "devices": [{"deviceID": 7}]}"#.utf8),
        Array(
            (#"{"version": 1, "devices": [{"deviceID": "X", "displayName": "x", "trust": "friend", "#
                + #""firstSeen": "2027-01-15T08:00:00Z", "lastSeen": "2027-01-15T08:00:00Z", "maximumVersionSeen": 1}]}"#)
                .utf8
        ),
        [],
        [0xFF, 0x00, 0xFE],
    ])
    func unreadableStoreIsLockedAndNeverOverwritten(contents: [UInt8]) throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let file = Self.file(in: temporary.url)
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data(contents)))
        let store = TrustStore(directory: temporary.url)
        let reason = try #require(store.lockedReason)
        #expect(reason.contains(file.path))
        #expect(store.records.isEmpty)
        let ada = try Self.id(1)
        #expect(!store.isPinned(ada) && !store.isBlocked(ada))
        #expect(throws: TrustStoreError.locked(reason)) {
            try store.set(.verified, for: ada, displayName: "ada")
        }
        #expect(throws: TrustStoreError.locked(reason)) {
            try store.set(.blocked, for: ada, displayName: "ada")
        }
        #expect(throws: TrustStoreError.locked(reason)) {
            try store.touch(ada, displayName: "ada", version: 1)
        }
        #expect(throws: TrustStoreError.locked(reason)) { try store.forget(ada) }
        #expect(store.record(for: ada) == nil)
        #expect(try Data(contentsOf: file) == Data(contents))
        #expect(try ScratchDirectory.temporaryFiles(in: temporary.url).isEmpty)
        #expect(TrustStore(directory: temporary.url).lockedReason != nil)
    }

    @Test func concurrentChangesLeaveAWholeFile() async throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let store = TrustStore(directory: temporary.url)
        let count = 64
        let ids = try (0..<count).map { try Self.id(UInt8($0 * 3)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, id) in ids.enumerated() {
                group.addTask {
                    try store.set(index % 3 == 0 ? .blocked : .verified, for: id, displayName: "peer \(index)")
                    try store.touch(id, displayName: "peer \(index)", version: 2)
                }
            }
            try await group.waitForAll()
        }
        let data = try Data(contentsOf: Self.file(in: temporary.url))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect((json["devices"] as? [[String: Any]])?.count == count)
        let reopened = TrustStore(directory: temporary.url)
        #expect(reopened.lockedReason == nil)
        #expect(Set(reopened.records.map(\.deviceID)) == Set(ids.map(\.description)))
        #expect(reopened.records.allSatisfy { $0.maximumVersionSeen == 2 })
        #expect(reopened.records.filter { $0.trust == .blocked }.count == (count + 2) / 3)
        #expect(try ScratchDirectory.temporaryFiles(in: temporary.url).isEmpty)
        #expect(try ScratchDirectory.mode(of: Self.file(in: temporary.url)) == 0o600)
    }

    /// A record whose device ID does not parse (a hand edit, a typo in a check character) locks the store: dropping
    /// it and writing the rest back would silently lose a pin or, worse, a block.
    @Test func recordWithAnUnreadableDeviceIDLocksTheStore() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let (ada, carl) = (try Self.id(1), try Self.id(3))
        let writer = TrustStore(directory: temporary.url)
        try writer.set(.verified, for: ada, displayName: "ada", now: Self.monday)
        try writer.set(.blocked, for: carl, displayName: "carl", now: Self.monday)
        let file = Self.file(in: temporary.url)
        let good = try String(contentsOf: file, encoding: .utf8)
        // Break one check character of carl's ID.
        let broken = carl.description.dropLast() + (carl.description.last == "A" ? "B" : "A")
        #expect((try? DeviceID(String(broken))) == nil)
        let damaged = Data(good.replacingOccurrences(of: carl.description, with: String(broken)).utf8)
        try damaged.write(to: file)

        let store = TrustStore(directory: temporary.url)
        let reason = try #require(store.lockedReason)
        #expect(reason.contains(file.path))
        #expect(store.records.isEmpty, "a locked store trusts nothing, not the records read before the bad one")
        #expect(!store.isPinned(ada))
        #expect(throws: TrustStoreError.locked(reason)) {
            try store.set(.tofu, for: try Self.id(5), displayName: "eve")
        }
        #expect(try Data(contentsOf: file) == damaged)
    }
}
