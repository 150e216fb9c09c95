public import Foundation
import Synchronization

/// The Wayland clipboards through the wl-clipboard helpers (`wl-copy`, `wl-paste`).
///
/// Wayland has no core clipboard access for programs without a surface; wl-clipboard uses the compositor's
/// data-control protocol (wlr / ext) or a hidden surface. Reading runs `wl-paste --list-types` and
/// `wl-paste --type T`; writing runs `wl-copy --type T`, which forks a background owner as xclip does; watching
/// runs one `wl-paste --watch` that prints a line per change (it blocks in the compositor's event loop, so an idle
/// watcher uses no CPU).
///
/// Tested against a headless sway (wlroots, data-control protocol) with wl-clipboard as the other side: text and
/// PNG both ways, watching, no echo. Not tested with GNOME's or KDE's compositors.
///
/// > Important: `wl-copy` offers one type per call, so ``write(_:to:)`` puts the item's first representation on
/// > the clipboard and drops the others.
public final class WaylandPasteboard: GeneralPasteboard {
    private let paste: HelperProgram
    private let copy: HelperProgram
    private let display: String
    /// Fingerprint of our last write, so the watcher can skip it (no echo).
    private let lastWrite = Mutex<Data?>(nil)

    /// - Throws: ``PasteboardError`` `.noBackend` without `WAYLAND_DISPLAY`, `.helperMissing` without wl-clipboard.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let display = environment["WAYLAND_DISPLAY"], !display.isEmpty else {
            throw PasteboardError(.noBackend, "WAYLAND_DISPLAY is not set: no Wayland compositor to talk to")
        }
        self.display = display
        self.paste = try HelperProgram("wl-paste", package: "wl-clipboard", environment: environment)
        self.copy = try HelperProgram("wl-copy", package: "wl-clipboard", environment: environment)
    }

    public var backendDescription: String { "Wayland \(self.display) (wl-clipboard)" }

    private static func selectionArguments(_ selection: PasteboardSelection) -> [String] {
        selection == .primary ? ["--primary"] : []
    }

    public func types(in selection: PasteboardSelection) async throws -> [PasteboardType] {
        try await runBlocking { try self.typesNow(in: selection) }
    }

    public func data(for type: PasteboardType, in selection: PasteboardSelection) async throws -> Data {
        try await runBlocking { try self.dataNow(for: type, in: selection) }
    }

    func typesNow(in selection: PasteboardSelection) throws -> [PasteboardType] {
        let result = try self.paste.run(["--list-types"] + Self.selectionArguments(selection))
        guard result.status == 0 else { return [] }  // "Nothing is copied"
        return String(decoding: result.output, as: UTF8.self).split(separator: "\n").map {
            PasteboardType(String($0))
        }
    }

    func dataNow(for type: PasteboardType, in selection: PasteboardSelection) throws -> Data {
        let offered = try self.typesNow(in: selection)
        guard !offered.isEmpty else {
            throw PasteboardError(.empty, "the Wayland \(selection.rawValue.lowercased()) is empty")
        }
        let names = offered.map(\.rawValue)
        var candidates = type.x11Targets.filter { $0.contains("/") || $0 == "UTF8_STRING" || $0 == "STRING" }
        if !candidates.contains(type.rawValue) { candidates.insert(type.rawValue, at: 0) }
        guard let chosen = candidates.first(where: names.contains) else {
            throw PasteboardError(
                .typeNotOffered,
                "the Wayland clipboard does not offer \(type) (it offers: \(names.joined(separator: ", ")))"
            )
        }
        let result = try self.paste.run(["--no-newline", "--type", chosen] + Self.selectionArguments(selection))
        guard result.status == 0 else { throw PasteboardError(.transferFailed, "wl-paste: \(result.error)") }
        return result.output
    }

    public func write(_ item: PasteboardItem, to selection: PasteboardSelection) async throws {
        guard let first = item.representations.first else {
            throw PasteboardError(.invalidInput, "cannot copy an item with no data")
        }
        let type = first.type.mimeType ?? first.type.rawValue
        self.lastWrite.withLock { $0 = first.data }
        try await runBlocking {
            let result = try self.copy.run(
                ["--type", type] + Self.selectionArguments(selection),
                input: first.data,
                detaches: true
            )
            guard result.status == 0 else {
                throw PasteboardError(.transferFailed, "wl-copy failed (exit status \(result.status))")
            }
        }
    }

    public func changes(of selection: PasteboardSelection) throws -> AsyncStream<PasteboardChange> {
        // `wl-paste --watch CMD` runs CMD at each change; `echo` turns each change into one line.
        let watcher = try self.paste.start(["--watch", "echo"] + Self.selectionArguments(selection))
        let (stream, continuation) = AsyncStream.makeStream(of: PasteboardChange.self)
        let process = UncheckedBox(watcher.process)
        continuation.onTermination = { _ in process.value.terminate() }
        let output = UncheckedBox(watcher.output)
        let thread = Thread {
            var sequence = 0
            while case let chunk = output.value.availableData, !chunk.isEmpty {
                for byte in chunk where byte == UInt8(ascii: "\n") {
                    guard let change = self.change(in: selection, sequence: sequence + 1) else { continue }
                    sequence += 1
                    continuation.yield(change)
                }
            }
            continuation.finish()
        }
        thread.start()
        return stream
    }

    /// The item after a change (read as ``PasteboardChange/reading(types:sequence:read:)`` says: an item whose
    /// secret marker is offered but cannot be read counts as secret), or nil when it is the one we wrote.
    private func change(in selection: PasteboardSelection, sequence: Int) -> PasteboardChange? {
        let types = (try? self.typesNow(in: selection)) ?? []
        let change = PasteboardChange.reading(types: types, sequence: sequence) {
            try self.dataNow(for: $0, in: selection)
        }
        let mine = self.lastWrite.withLock { last in
            last != nil && change.item.representations.first?.data == last
        }
        return mine ? nil : change
    }
}
