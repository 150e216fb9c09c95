#if os(Linux) || os(FreeBSD) || os(OpenBSD)
public import Foundation
import Synchronization

/// The X11 clipboards, spoken to directly through Xlib and XFixes loaded at run time.
///
/// - Reading opens a short connection, asks for `TARGETS` or one target, and reads the property, by INCR for
///   large items (ICCCM §2.4, §2.7.2).
/// - Writing takes the selection with a window of a new connection and serves requests on a thread of its own
///   until another program takes the selection, ``release(_:)`` is called, or the process exits. X11 keeps no
///   copy: when the owner exits, the clipboard is empty unless a clipboard manager saved it. A command-line tool
///   must therefore keep a process alive after it returns; `huddle pb copy` starts a background owner, as xclip does.
/// - Watching uses XFixes `SelectSelectionInput` (XFixes protocol version 1, "Selection Tracking"): the server sends
///   an event when the owner changes, so an idle watcher is blocked in `poll(2)` and uses no CPU.
///
/// > Note: When the X server exits, owners and watchers end (the stream finishes) instead of Xlib's default of
/// > exiting the process; this needs libX11 1.7 or newer (`XSetIOErrorExitHandler`). Writing to the dead server's
/// > socket can raise `SIGPIPE`: a program that must survive its X server going away should ignore `SIGPIPE`.
public final class X11Pasteboard: GeneralPasteboard {
    /// The display, as in `DISPLAY` (`:0`).
    public let displayName: String
    /// The largest item accepted when reading.
    public let maximumItemBytes: Int
    /// How long to wait for an owner's answer, and between INCR chunks.
    public let timeout: Duration
    private let owners = Mutex<[PasteboardSelection: X11SelectionOwner]>([:])

    /// Connects to `displayName`, or to `$DISPLAY`.
    ///
    /// - Throws: ``PasteboardError`` naming what is missing: no `DISPLAY`, libX11 or libXfixes not installed, or the
    ///   server refusing the connection.
    public init(
        displayName: String? = nil,
        maximumItemBytes: Int = PasteboardLimits.defaultMaximumItemBytes,
        timeout: Duration = .seconds(2)
    ) throws {
        let connection = try X11Connection(displayName: displayName)
        self.displayName = displayName ?? ProcessInfo.processInfo.environment["DISPLAY"] ?? ""
        self.maximumItemBytes = maximumItemBytes
        self.timeout = timeout
        _ = connection  // checked reachable; each operation opens its own
    }

    public var backendDescription: String { "X11 \(self.displayName)" }

    public func types(in selection: PasteboardSelection) async throws -> [PasteboardType] {
        try await runBlocking { try self.typesNow(in: selection) }
    }

    public func data(for type: PasteboardType, in selection: PasteboardSelection) async throws -> Data {
        try await runBlocking { try self.dataNow(for: type, in: selection) }
    }

    public func write(_ item: PasteboardItem, to selection: PasteboardSelection) async throws {
        try self.writeNow(item, to: selection)
    }

    public func changes(of selection: PasteboardSelection) throws -> AsyncStream<PasteboardChange> {
        try X11SelectionWatcher.start(pasteboard: self, selection: selection)
    }

    /// Gives up a selection this process owns, and stops serving it.
    public func release(_ selection: PasteboardSelection) {
        let owner = self.owners.withLock { $0.removeValue(forKey: selection) }
        owner?.release()
    }

    /// Blocks until this process no longer owns `selection`: another program took it, or it was released.
    public func waitUntilReplaced(_ selection: PasteboardSelection) {
        self.owners.withLock { $0[selection] }?.waitUntilFinished()
    }

    /// ``types(in:)`` without leaving the calling thread.
    public func typesNow(in selection: PasteboardSelection) throws -> [PasteboardType] {
        let connection = try X11Connection(displayName: self.displayName)
        return try Self.types(connection, selection, timeout: self.timeout)
    }

    /// ``data(for:in:)`` without leaving the calling thread.
    public func dataNow(for type: PasteboardType, in selection: PasteboardSelection) throws -> Data {
        let connection = try X11Connection(displayName: self.displayName)
        // TARGETS first, always: some owners (xclip) answer any target with their one item, so asking for a
        // type without checking the list could return the wrong kind of data.
        let offered = try connection.targets(selection: selection.rawValue, timeout: self.timeout)
        return try self.read(type, offered: offered, connection, selection)
    }

    /// ``write(_:to:)`` without leaving the calling thread.
    public func writeNow(_ item: PasteboardItem, to selection: PasteboardSelection) throws {
        guard !item.isEmpty else { throw PasteboardError(.invalidInput, "cannot copy an item with no data") }
        let owner = try X11SelectionOwner(item: item, selection: selection.rawValue, displayName: self.displayName)
        self.owners.withLock { $0[selection] = owner }
    }

    static func types(
        _ connection: X11Connection,
        _ selection: PasteboardSelection,
        timeout: Duration
    ) throws
        -> [PasteboardType]
    {
        try connection.targets(selection: selection.rawValue, timeout: timeout)
            .filter { !Self.metaTargets.contains($0) }
            .map(PasteboardType.init(rawValue:))
    }

    /// Targets that describe the selection rather than carry data (ICCCM §2.6.2).
    static let metaTargets: Set<String> = [
        "TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "DELETE", "INSERT_SELECTION", "INSERT_PROPERTY",
    ]

    /// Reads `type` under the first of its X11 spellings the owner offers.
    func read(
        _ type: PasteboardType,
        offered: [String],
        _ connection: X11Connection,
        _ selection: PasteboardSelection
    ) throws -> Data {
        var candidates = type.x11Targets
        if !candidates.contains(type.rawValue) { candidates.insert(type.rawValue, at: 0) }
        guard let target = candidates.first(where: offered.contains) else {
            let list = offered.filter { !Self.metaTargets.contains($0) }.joined(separator: ", ")
            throw PasteboardError(
                .typeNotOffered,
                "the \(selection.rawValue) owner does not offer \(type) (it offers: \(list.isEmpty ? "nothing" : list))"
            )
        }
        let reply = try connection.convert(
            selection: selection.rawValue,
            target: target,
            timeout: self.timeout,
            maximumBytes: self.maximumItemBytes
        )
        if reply.type == "STRING" && type.isText {
            // ISO Latin-1 (ICCCM §2.7.1): each byte is the Unicode scalar of the same value.
            return Data(String(String.UnicodeScalarView(reply.data.map { Unicode.Scalar($0) })).utf8)
        }
        return reply.data
    }
}
#endif
