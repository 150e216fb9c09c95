public import Foundation
import HuddleTransport

// `stat` and its fields: which module the compiler credits with them depends on the order modules load in (the C
// header is shared), and member import visibility then wants that module imported (as in Huddle's
// TransferSource.swift).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(CoreFoundation)
import CoreFoundation
#endif

/// A foreign device's certificate fingerprint, kept after the first transfer the user accepted with it
/// (docs/threat-model.md, "Foreign peers"). Neither LocalSend nor KDE Connect has a pairing code: the pin is
/// trust on first use, and what it buys is a loud warning when a device of the same name later shows another
/// certificate.
public struct ForeignPin: Codable, Sendable, Hashable {
    public var `protocol`: ForeignProtocol
    public var name: String
    /// Uppercase hex.
    public var fingerprint: String
    public var pinnedAt: Date

    public init(protocol: ForeignProtocol, name: String, fingerprint: String, pinnedAt: Date) {
        self.protocol = `protocol`
        self.name = name
        self.fingerprint = fingerprint.uppercased()
        self.pinnedAt = pinnedAt
    }
}

/// What the pins say about a foreign peer.
public enum ForeignTrust: Sendable, Hashable {
    /// Its fingerprint is pinned.
    case pinned(ForeignPin)
    /// Nothing is pinned for it (or it has no fingerprint to pin, and its name is not pinned).
    case unpinned
    /// Another fingerprint is pinned under its name, or it shows none under a pinned name: it may be another
    /// device posing as the one pinned.
    case changed(pinned: ForeignPin)
}

extension ForeignTrust {
    /// The trust in one word: `pinned`, `unpinned` or `changed`.
    public var word: String {
        switch self {
        case .pinned: "pinned"
        case .unpinned: "unpinned"
        case .changed: "changed"
        }
    }

    /// The trust as the user is told it.
    public var phrase: String {
        switch self {
        case .pinned: "pinned on first use, not verified"
        case .unpinned: "not pinned, not verified"
        case .changed: "CERTIFICATE CHANGED"
        }
    }

    public var isChanged: Bool {
        if case .changed = self { return true }
        return false
    }

    public var isPinned: Bool {
        if case .pinned = self { return true }
        return false
    }
}

/// The pins, and the rule that reads them. Pure: ``ForeignPinStore`` keeps them on disk.
public struct ForeignPinBook: Sendable, Hashable, Codable {
    public private(set) var pins: [ForeignPin] = []

    public init(pins: [ForeignPin] = []) { self.pins = pins }

    /// A peer without a fingerprint (no certificate shown) under a pinned name is `.changed`: it may be another
    /// device posing as the pinned one, and is never taken for it.
    public func trust(of peer: ForeignPeer) -> ForeignTrust {
        let ofProtocol = pins.filter { $0.protocol == peer.protocol }
        guard let fingerprint = peer.fingerprint?.uppercased() else {
            return ofProtocol.first(where: { $0.name == peer.name }).map { .changed(pinned: $0) } ?? .unpinned
        }
        if let pin = ofProtocol.first(where: { $0.fingerprint == fingerprint }) { return .pinned(pin) }
        if let other = ofProtocol.first(where: { $0.name == peer.name }) { return .changed(pinned: other) }
        return .unpinned
    }

    /// Pins the peer's fingerprint under its name, replacing a pin of the same fingerprint or the same name.
    /// A peer without a fingerprint is not pinned; returns whether something was.
    @discardableResult
    public mutating func pin(_ peer: ForeignPeer, at now: Date) -> Bool {
        guard let fingerprint = peer.fingerprint?.uppercased() else { return false }
        pins.removeAll { $0.protocol == peer.protocol && ($0.fingerprint == fingerprint || $0.name == peer.name) }
        pins.append(ForeignPin(protocol: peer.protocol, name: peer.name, fingerprint: fingerprint, pinnedAt: now))
        return true
    }
}

extension ForeignPinBook {
    /// Forgets the pin of this fingerprint (a device that unpaired); returns whether there was one.
    @discardableResult
    public mutating func unpin(_ protocolName: ForeignProtocol, fingerprint: String) -> Bool {
        let before = pins.count
        pins.removeAll { $0.protocol == protocolName && $0.fingerprint == fingerprint.uppercased() }
        return pins.count != before
    }
}

/// The pins on disk: `foreign-pins.json` in the data directory, written whole and atomically, mode 0600.
public struct ForeignPinStore: Sendable {
    public let file: URL

    public init(directory: URL) {
        file = directory.appendingPathComponent("foreign-pins.json")
    }

    /// The pins; none when the file does not exist yet.
    ///
    /// A file that exists but cannot be read (no permission, a directory, a name the system cannot look up) is
    /// not taken for no pins: every pinned device would then look new, and a changed certificate would pass
    /// unwarned (docs/threat-model.md, "Foreign peers").
    /// - Throws: ``ForeignPinError/unreadable(_:)`` when the file exists, or may exist, and cannot be read as pins.
    public func load() throws -> ForeignPinBook {
        var info = stat()
        if lstat(file.path, &info) != 0 {
            if errno == ENOENT { return ForeignPinBook() }
            throw ForeignPinError.unreadable(file.path)
        }
        do {
            let data = try Data(contentsOf: file)
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(ForeignPinBook.self, from: data)
        } catch {
            throw ForeignPinError.unreadable(file.path)
        }
    }

    /// Pins `peer` (a read-modify-write of the file).
    @discardableResult
    public func pin(_ peer: ForeignPeer, at now: Date = Date()) throws -> Bool {
        var book = try load()
        guard book.pin(peer, at: now) else { return false }
        try save(book)
        return true
    }

    /// Forgets a pin (a read-modify-write of the file).
    public func unpin(_ protocolName: ForeignProtocol, fingerprint: String) throws {
        var book = try load()
        if book.unpin(protocolName, fingerprint: fingerprint) { try save(book) }
    }

    func save(_ book: ForeignPinBook) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicFile.write(Array(try encoder.encode(book)), to: file, mode: 0o600)
    }
}

public enum ForeignPinError: Error, Sendable, Hashable, CustomStringConvertible {
    case unreadable(String)

    public var description: String {
        switch self {
        case .unreadable(let path): "\(path) is not a pin file Huddle can read; move it aside to start afresh"
        }
    }
}
