public import Foundation

/// Named pasteboards shared between the processes of one user: hand-off from one app to another, as iPhone apps had
/// it with named `UIPasteboard`s.
///
/// Each pasteboard is one file, `<name>.hpb` in the ``PasteboardItemArchive`` format:
/// - session pasteboards live under `$XDG_RUNTIME_DIR/huddle/pasteboards`, which the system empties at logout
///   (XDG Base Directory Specification, "`$XDG_RUNTIME_DIR`": owned by the user, mode 0700, removed at logout);
/// - persistent ones under `$XDG_DATA_HOME/huddle/pasteboards` (default `~/.local/share`).
///
/// Directories are made 0700 and files 0600. A write goes to a temporary file that is `fsync`ed and renamed over
/// the old one (rename is atomic, POSIX `rename(2)`), so a reader sees the old item or the new one, never a mix.
/// Writers and read-and-clear take an exclusive `flock(2)` on a per-name lock file, so concurrent writers are
/// serialised and an item read-and-cleared is handed to exactly one reader.
public struct NamedPasteboardStore: Sendable {
    /// Where session pasteboards live.
    public let sessionDirectory: URL
    /// Where persistent pasteboards live.
    public let persistentDirectory: URL
    /// The shared-/tmp fallback the session directory is under, if it is: it must be this user's, mode 0700.
    private var privateRoot: URL?

    /// Names are 1–128 characters of letters, digits, `.`, `_` and `-`, not starting with `.`: safe as file
    /// names everywhere, and no path traversal.
    public static let maximumNameLength = 128

    /// The user's directories from the environment.
    ///
    /// Without `XDG_RUNTIME_DIR` (some containers and ssh sessions), session pasteboards go to
    /// `<temporaryDirectory>/huddle-<uid>` (`/tmp/huddle-<uid>`), a name any local user could take first. It is
    /// used only when it is a real directory (not a link), owned by this user, with mode 0700 — it is made so when
    /// it does not exist — and each directory made under it is checked the same way.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        temporaryDirectory: URL = URL(fileURLWithPath: "/tmp")
    ) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "\(home)/.local/share"
        let persistent = URL(fileURLWithPath: data).appendingPathComponent("huddle/pasteboards")
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            self.init(
                sessionDirectory: URL(fileURLWithPath: runtime).appendingPathComponent("huddle/pasteboards"),
                persistentDirectory: persistent
            )
        } else {
            let fallback = temporaryDirectory.appendingPathComponent("huddle-\(getuid())", isDirectory: true)
            self.init(
                sessionDirectory: fallback.appendingPathComponent("huddle/pasteboards"),
                persistentDirectory: persistent
            )
            self.privateRoot = fallback
        }
    }

    public init(sessionDirectory: URL, persistentDirectory: URL) {
        self.sessionDirectory = sessionDirectory
        self.persistentDirectory = persistentDirectory
    }

    /// What ``NamedPasteboardFile/prepare(_:under:)`` needs to know of `directory`.
    private func root(of directory: URL) -> URL? {
        directory == self.sessionDirectory ? self.privateRoot : nil
    }

    /// Checks a name.
    ///
    /// - Throws: ``PasteboardError/Code/invalidName`` saying which rule it breaks.
    public static func validate(_ name: String) throws {
        guard !name.isEmpty, name.count <= Self.maximumNameLength else {
            throw PasteboardError(.invalidName, "a pasteboard name has 1 to \(Self.maximumNameLength) characters")
        }
        guard !name.hasPrefix("."),
            name.unicodeScalars.allSatisfy({
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0))
            })
        else {
            throw PasteboardError(
                .invalidName,
                "invalid pasteboard name \"\(name)\": use letters, digits, '.', '_' and '-', not starting with '.'"
            )
        }
    }

    /// Stores an item under `name`, replacing what was there.
    ///
    /// - Parameters:
    ///   - persistent: keep it across logouts (data directory) rather than for the session (runtime directory).
    ///   - expires: when it stops being readable; nil for never.
    public func write(_ item: PasteboardItem, name: String, persistent: Bool = false, expires: Date? = nil) throws {
        try Self.validate(name)
        let directory = persistent ? self.persistentDirectory : self.sessionDirectory
        let other = persistent ? self.sessionDirectory : self.persistentDirectory
        let archive = PasteboardItemArchive(item: item, expires: expires).encoded()
        try NamedPasteboardFile.withLock(
            directory: directory,
            under: self.root(of: directory),
            name: name,
            exclusive: true
        ) {
            try NamedPasteboardFile.writeAtomically(archive, directory: directory, name: name)
        }
        // A name lives in one place: drop a copy of the other kind.
        if NamedPasteboardFile.exists(directory: other, name: name) {
            try NamedPasteboardFile.withLock(directory: other, under: self.root(of: other), name: name, exclusive: true)
            {
                try NamedPasteboardFile.remove(directory: other, name: name)
            }
        }
    }

    /// The item stored under `name`.
    ///
    /// - Throws: ``PasteboardError/Code/notFound`` when there is none or it expired (an expired one is removed).
    public func read(name: String, now: Date = Date()) throws -> PasteboardItem {
        try self.take(name: name, clear: false, now: now)
    }

    /// The item stored under `name`, removed in the same step: with several readers, exactly one gets it.
    public func readAndClear(name: String, now: Date = Date()) throws -> PasteboardItem {
        try self.take(name: name, clear: true, now: now)
    }

    /// Removes a named pasteboard. Returns whether there was one.
    @discardableResult
    public func remove(name: String) throws -> Bool {
        try Self.validate(name)
        var removed = false
        for directory in [self.sessionDirectory, self.persistentDirectory]
        where NamedPasteboardFile.exists(directory: directory, name: name) {
            try NamedPasteboardFile.withLock(
                directory: directory,
                under: self.root(of: directory),
                name: name,
                exclusive: true
            ) {
                removed = try NamedPasteboardFile.remove(directory: directory, name: name) || removed
            }
        }
        return removed
    }

    /// The stored pasteboards, sorted by name; expired ones are removed and left out.
    public func list(now: Date = Date()) throws -> [NamedPasteboardInfo] {
        var result: [NamedPasteboardInfo] = []
        for (directory, persistent) in [(self.sessionDirectory, false), (self.persistentDirectory, true)] {
            for name in NamedPasteboardFile.names(in: directory) {
                guard let archive = try? self.archive(directory: directory, name: name) else { continue }
                if archive.isExpired(at: now) {
                    _ = try? self.remove(name: name)
                    continue
                }
                result.append(NamedPasteboardInfo(name: name, persistent: persistent, archive: archive))
            }
        }
        return result.sorted { $0.name < $1.name }
    }

    private func archive(directory: URL, name: String) throws -> PasteboardItemArchive {
        let data = try NamedPasteboardFile.withLock(
            directory: directory,
            under: self.root(of: directory),
            name: name,
            exclusive: false
        ) {
            try NamedPasteboardFile.read(directory: directory, name: name)
        }
        return try PasteboardItemArchive(decoding: data)
    }

    private func take(name: String, clear: Bool, now: Date) throws -> PasteboardItem {
        try Self.validate(name)
        for directory in [self.sessionDirectory, self.persistentDirectory]
        where NamedPasteboardFile.exists(directory: directory, name: name) {
            let archive = try NamedPasteboardFile.withLock(
                directory: directory,
                under: self.root(of: directory),
                name: name,
                exclusive: true
            ) {
                () throws -> PasteboardItemArchive? in
                guard NamedPasteboardFile.exists(directory: directory, name: name) else { return nil }  // raced
                let archive = try PasteboardItemArchive(
                    decoding: try NamedPasteboardFile.read(directory: directory, name: name)
                )
                if clear || archive.isExpired(at: now) {
                    try NamedPasteboardFile.remove(directory: directory, name: name)
                }
                return archive
            }
            guard let archive else { continue }
            guard !archive.isExpired(at: now) else {
                throw PasteboardError(.notFound, "the pasteboard \"\(name)\" expired at \(archive.expires!)")
            }
            return archive.item
        }
        throw PasteboardError(.notFound, "no pasteboard named \"\(name)\"")
    }
}

/// What ``NamedPasteboardStore/list(now:)`` shows of one pasteboard.
public struct NamedPasteboardInfo: Hashable, Sendable {
    public var name: String
    public var persistent: Bool
    public var types: [PasteboardType]
    public var byteCount: Int
    public var created: Date
    public var expires: Date?
    /// Whether a password manager marked the item secret.
    public var isSecret: Bool

    init(name: String, persistent: Bool, archive: PasteboardItemArchive) {
        self.name = name
        self.persistent = persistent
        self.types = archive.item.types
        self.byteCount = archive.item.byteCount
        self.created = archive.created
        self.expires = archive.expires
        self.isSecret = archive.item.isSecret
    }
}
