public import Foundation
public import HuddleWire
import NIOConcurrencyHelpers

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

    public init(
        deviceID: DeviceID,
        displayName: String,
        trust: TrustLevel,
        firstSeen: Date,
        lastSeen: Date,
        maximumVersionSeen: UInt8
    ) {
        self.deviceID = deviceID.description
        self.displayName = displayName
        self.trust = trust
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.maximumVersionSeen = maximumVersionSeen
    }
}

/// The pins: which device keys are trusted, kept in `trust.json` under the data directory.
///
/// Reads come from memory (the TLS verification callback runs on an event loop and must not block). Every change
/// is written at once and atomically. When the file exists but cannot be read or parsed, the store is *locked*:
/// it answers that nothing is trusted, refuses every change, and never overwrites the file, so a damaged store is
/// not silently replaced by an empty one.
public final class TrustStore: Sendable {
    struct Contents: Codable {
        var version = 1
        var devices: [TrustRecord] = []
    }

    private struct State {
        var records: [DeviceID: TrustRecord] = [:]
        var lockedReason: String?
    }

    /// Where the store lives; `nil` for a store in memory only.
    public let file: URL?
    private let state: NIOLockedValueBox<State>

    /// A store that is never written to disk.
    public init() {
        self.file = nil
        self.state = NIOLockedValueBox(State())
    }

    /// Opens (or starts) the store at `directory/trust.json`.
    public init(directory: URL) {
        let file = directory.appendingPathComponent("trust.json")
        self.file = file
        var initial = State()
        if FileManager.default.fileExists(atPath: file.path) {
            do {
                let data = try Data(contentsOf: file)
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                let contents = try decoder.decode(Contents.self, from: data)
                for record in contents.devices {
                    // A record that cannot be read locks the store like a damaged file: dropping it would lose
                    // it (a pin, or a block) at the next write.
                    initial.records[try DeviceID(record.deviceID)] = record
                }
            } catch {
                initial.records = [:]
                initial.lockedReason = "the trust store \(file.path) cannot be read (\(error)); it was left untouched"
            }
        }
        self.state = NIOLockedValueBox(initial)
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
            var record =
                records[id]
                ?? TrustRecord(
                    deviceID: id,
                    displayName: displayName,
                    trust: trust,
                    firstSeen: now,
                    lastSeen: now,
                    maximumVersionSeen: version
                )
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

    private func change(_ body: (inout [DeviceID: TrustRecord]) -> Void) throws {
        try state.withLockedValue { state in
            if let reason = state.lockedReason { throw TrustStoreError.locked(reason) }
            var records = state.records
            body(&records)
            if let file {
                var contents = Contents()
                contents.devices = records.values.sorted { $0.deviceID < $1.deviceID }
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                encoder.dateEncodingStrategy = .iso8601
                let data = try encoder.encode(contents)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(),
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
                try AtomicFile.write(Array(data), to: file, mode: 0o600)
            }
            state.records = records
        }
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
