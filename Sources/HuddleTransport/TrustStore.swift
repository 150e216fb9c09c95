public import Foundation
public import HuddleWire
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How much a device is trusted (`docs/security.md` §3.3).
public enum TrustLevel: String, Codable, Hashable, Sendable, CaseIterable {
    /// Paired by comparing the code (or scanning the full ID).
    case verified
    /// Accepted without comparing the code (`--trust-on-first-use`).
    case tofu
    /// Refused inside the TLS handshake.
    case blocked
}

/// What is known about one device.
public struct TrustRecord: Codable, Hashable, Sendable {
    public var deviceID: String
    public var displayName: String
    public var trust: TrustLevel
    public var firstSeen: Date
    public var lastSeen: Date
    /// The highest protocol version seen from it: a lower one later is a downgrade.
    public var maximumVersionSeen: UInt8
    /// Where it was last reached, most recent first (`host:port`, at most ``TrustStore/rememberedAddressLimit``):
    /// dialled when it is not found nearby. Only where to dial; the pinned key decides who answers.
    public var addresses: [String]?

    /// A device first seen `now`, speaking protocol `version`.
    public init(deviceID: DeviceID, displayName: String, trust: TrustLevel, seen now: Date, version: UInt8) {
        self.deviceID = deviceID.description
        self.displayName = displayName
        self.trust = trust
        (firstSeen, lastSeen) = (now, now)
        maximumVersionSeen = version
    }
}

/// The pins: which device keys are trusted, kept in `trust.json` under the data directory.
///
/// Reads come from an in-memory snapshot (the TLS verification callback runs on an event loop and must not block
/// or touch the disk). Several stores may share the file — a running session and `huddle trust block` in another
/// process — so every change is a read-modify-write under an exclusive `flock` on `trust.json.lock`: the file is
/// read again under the lock, the one change applied, and the result written atomically. No change is ever made
/// to a stale copy. ``reloadIfChanged()`` swaps in a new snapshot when the file changed (a `stat`; the file is read
/// only then); a ``PeerSession`` calls it a few times a second, off the event loops.
///
/// The file is used only when this user owns it and others cannot write to it, in a data directory that passes
/// ``DataDirectory/check(_:)``. When it cannot be used — unsafe, unreadable or damaged — the store is *locked*: it
/// answers that nothing is trusted, refuses every change, and never overwrites the file, so a damaged store is
/// not silently replaced by an empty one and a planted one is not believed.
public final class TrustStore: Sendable {
    struct Contents: Codable {
        var version = 1
        var devices: [TrustRecord] = []
    }

    /// What the store answers from; replaced whole.
    private struct State {
        var records: [DeviceID: TrustRecord] = [:]
        var lockedReason: String?
        /// The version of the file (and its directory) the snapshot was read from.
        var stamp = FileStamp()
    }

    /// See ``DataDirectory/stamp(of:)``.
    private struct FileStamp: Hashable {
        var value: [Int] = []

        init() {}

        init(_ file: URL) { value = DataDirectory.stamp(of: file) }
    }

    /// Where the store lives; `nil` for a store in memory only.
    public let file: URL?
    private let state: NIOLockedValueBox<State>
    /// Held while this store reads or writes the disk, so that the snapshot only moves forward; the `flock`
    /// does the same between processes. Readers of the snapshot never wait for it.
    private let disk = NIOLock()

    /// A store that is never written to disk.
    public init() {
        self.file = nil
        self.state = NIOLockedValueBox(State())
    }

    /// Opens (or starts) the store at `directory/trust.json`.
    public init(directory: URL) {
        let file = directory.appendingPathComponent("trust.json")
        self.file = file
        self.state = NIOLockedValueBox(Self.load(file))
    }

    /// Why the store refuses changes, when it does.
    public var lockedReason: String? { state.withLockedValue { $0.lockedReason } }

    /// The record of `id`, if any.
    public func record(for id: DeviceID) -> TrustRecord? { state.withLockedValue { $0.records[id] } }

    /// Every record, ordered by display name.
    public var records: [TrustRecord] {
        state.withLockedValue { Array($0.records.values) }.sorted {
            ($0.displayName, $0.deviceID) < ($1.displayName, $1.deviceID)
        }
    }

    /// Whether `id` is pinned (verified or trust-on-first-use).
    public func isPinned(_ id: DeviceID) -> Bool {
        guard let trust = record(for: id)?.trust else { return false }
        return trust != .blocked
    }

    /// Whether `id` is blocked.
    public func isBlocked(_ id: DeviceID) -> Bool { record(for: id)?.trust == .blocked }

    /// Reads the file again if it changed since this store last read or wrote it (another process's change).
    ///
    /// Costs a `stat` when nothing changed. Blocks on the disk: call it off the event loops.
    ///
    /// - Returns: whether what the store answers changed.
    @discardableResult
    public func reloadIfChanged() -> Bool {
        guard let file else { return false }
        return disk.withLock {
            let old = state.withLockedValue { $0 }
            guard FileStamp(file) != old.stamp else { return false }
            let fresh = Self.load(file)
            state.withLockedValue { $0 = fresh }
            return fresh.records != old.records || fresh.lockedReason != old.lockedReason
        }
    }

    /// Sets the trust of `id`, keeping what else is known.
    public func set(
        _ trust: TrustLevel,
        for id: DeviceID,
        displayName: String,
        version: UInt8 = 1,
        now: Date = Date()
    )
        throws
    {
        try change { records in
            let first = TrustRecord(deviceID: id, displayName: displayName, trust: trust, seen: now, version: version)
            var record = records[id] ?? first
            record.trust = trust
            record.displayName = displayName
            record.lastSeen = now
            record.maximumVersionSeen = max(record.maximumVersionSeen, version)
            records[id] = record
        }
    }

    /// Notes that a pinned device was seen again (name, time, version).
    public func touch(_ id: DeviceID, displayName: String, version: UInt8, now: Date = Date()) throws {
        try change { records in
            guard var record = records[id] else { return }
            record.displayName = displayName
            record.lastSeen = now
            record.maximumVersionSeen = max(record.maximumVersionSeen, version)
            records[id] = record
        }
    }

    /// Removes every trace of `id`: it must pair again.
    public func forget(_ id: DeviceID) throws {
        try change { records in records[id] = nil }
    }

    /// Applies `body` to the records on disk now, under the lock, and writes the result.
    func change(_ body: (inout [DeviceID: TrustRecord]) -> Void) throws {
        guard let file else {
            state.withLockedValue { body(&$0.records) }
            return
        }
        try disk.withLock {
            let directory = file.deletingLastPathComponent()
            do throws(DataDirectoryError) {
                try DataDirectory.prepare(directory)
            } catch {
                let refused = State(records: [:], lockedReason: Self.refusal(file, error), stamp: FileStamp(file))
                state.withLockedValue { $0 = refused }
                throw TrustStoreError.locked(refused.lockedReason!)
            }
            let lock = try Self.lock(directory.appendingPathComponent("trust.json.lock"))
            defer { close(lock) }  // closing releases the lock
            var current = Self.load(file)
            let old = state.withLockedValue { $0 }
            // The same refused file: keep the reason already given, word for word.
            if current.lockedReason != nil, old.lockedReason != nil, current.stamp == old.stamp { current = old }
            state.withLockedValue { $0 = current }
            if let reason = current.lockedReason { throw TrustStoreError.locked(reason) }
            var records = current.records
            body(&records)
            var contents = Contents()
            contents.devices = records.values.sorted { $0.deviceID < $1.deviceID }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            try AtomicFile.write(Array(try encoder.encode(contents)), to: file, mode: 0o600)
            state.withLockedValue { $0 = State(records: records, lockedReason: nil, stamp: FileStamp(file)) }
        }
    }

    /// Opens and locks the lock file.
    private static func lock(_ url: URL) throws -> Int32 {
        let fd = open(url.path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AtomicFileError.cannotWrite(path: url.path, errno: errno) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let error = errno
                close(fd)
                throw AtomicFileError.cannotWrite(path: url.path, errno: error)
            }
        }
        return fd
    }

    private static func refusal(_ file: URL, _ error: DataDirectoryError) -> String {
        "the trust store \(file.path) was not used: \(error)"
    }

    /// What the file says now; a locked state when it cannot be used.
    private static func load(_ file: URL) -> State {
        // Taken before reading: a change made while this reads is then seen by the next reload.
        let stamp = FileStamp(file)
        var state = State()
        state.stamp = stamp
        func refuse(_ reason: String) -> State {
            State(records: [:], lockedReason: reason, stamp: stamp)
        }
        let directory = file.deletingLastPathComponent()
        guard DataDirectory.exists(directory) else { return state }  // nothing stored yet
        do {
            try DataDirectory.check(directory)
        } catch {
            return refuse(refusal(file, error))
        }
        let bytes: [UInt8]
        do throws(PrivateFileError) {
            guard let read = try DataDirectory.readPrivateFile(file) else { return state }
            bytes = read
        } catch .cannotRead(let code) {
            return refuse(
                "the trust store \(file.path) cannot be read (\(String(cString: strerror(code)))); it was left untouched"
            )
        } catch .openToOthers(let mode) {
            return refuse(
                "the trust store \(file.path) \(PrivateFileError.openToOthers(mode: mode)): it was not read, and "
                    + "will not be written; check it, then run: chmod 600 \(file.path)"
            )
        } catch {
            return refuse("the trust store \(file.path) \(error): it was not read, and will not be written")
        }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let contents = try decoder.decode(Contents.self, from: Data(bytes))
            for record in contents.devices {
                // A record that cannot be read locks the store like a damaged file: dropping it would lose
                // it (a pin, or a block) at the next write.
                state.records[try DeviceID(record.deviceID)] = record
            }
        } catch {
            return refuse("the trust store \(file.path) cannot be read (\(error)); it was left untouched")
        }
        return state
    }
}

/// Why the trust store refused a change.
public enum TrustStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    case locked(String)

    public var description: String {
        switch self {
        case .locked(let reason): reason
        }
    }
}
