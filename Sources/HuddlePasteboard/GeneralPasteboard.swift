public import Foundation

/// Which system selection to use.
///
/// X11 has several: `CLIPBOARD` is what Copy and Paste use, `PRIMARY` holds the last text selected with the mouse
/// (pasted with the middle button) (ICCCM §2.6.1). Wayland has the same two; macOS has only the general pasteboard,
/// where ``primary`` is refused.
public enum PasteboardSelection: String, Sendable, CaseIterable {
    case clipboard = "CLIPBOARD"
    case primary = "PRIMARY"
}

/// One change of a system clipboard, as seen by a watcher.
public struct PasteboardChange: Sendable {
    /// The new content: the representations of known types (text, HTML, URLs, images) read at once; empty when the
    /// owner went away or the item is secret.
    public var item: PasteboardItem
    /// Every type the new owner offers, read or not.
    public var types: [PasteboardType]
    /// Whether a password manager marked the item secret (``PasteboardItem/isSecret``); its data is not read.
    public var isSecret: Bool
    /// Counts changes seen by this watcher, from 1.
    public var sequence: Int
    /// When the change was seen.
    public var date: Date

    public init(item: PasteboardItem, types: [PasteboardType], isSecret: Bool, sequence: Int, date: Date = Date()) {
        self.item = item
        self.types = types
        self.isSecret = isSecret
        self.sequence = sequence
        self.date = date
    }

    /// Whether the clipboard became empty (its owner exited without handing the data on).
    public var isEmpty: Bool { self.types.isEmpty }
}

/// A system clipboard: X11, Wayland or macOS.
///
/// Get one with ``SystemPasteboard/make(environment:)``, which picks the backend from the environment.
public protocol GeneralPasteboard: Sendable {
    /// A short name of the backend for messages (`X11 :0`, `Wayland wayland-0 (wl-clipboard)`).
    var backendDescription: String { get }

    /// The types the current owner offers, in its order.
    func types(in selection: PasteboardSelection) async throws -> [PasteboardType]

    /// The bytes of one type, asked for under its best spelling for the backend.
    ///
    /// - Throws: ``PasteboardError`` `.empty` or `.typeNotOffered` with the types that are on offer.
    func data(for type: PasteboardType, in selection: PasteboardSelection) async throws -> Data

    /// Puts an item on the clipboard with all its representations; pasting programs pick the type they want.
    ///
    /// The item stays available after this returns, for as long as the backend's owner lives (see each backend).
    func write(_ item: PasteboardItem, to selection: PasteboardSelection) async throws

    /// The changes of the clipboard, as they happen; this process's own writes are left out.
    func changes(of selection: PasteboardSelection) throws -> AsyncStream<PasteboardChange>
}

extension GeneralPasteboard {
    /// Reads the representations of the known types on offer (and carries the rest by name only), and the
    /// password managers' secret markers, so ``PasteboardItem/isSecret`` holds for what is read. A hint that is
    /// offered but cannot be read counts as `secret`.
    public func item(in selection: PasteboardSelection) async throws -> PasteboardItem {
        var item = PasteboardItem()
        for type in try await self.types(in: selection) {
            if type == .concealed {
                item.setData(Data(), for: .concealed)
                continue
            }
            guard PasteboardTypeCatalog.entry(for: type) != nil || type == .passwordManagerHint else { continue }
            let canonical = type.canonical
            guard item.representation(for: canonical) == nil else { continue }
            if let data = try? await self.data(for: canonical, in: selection) {
                item.setData(data, for: canonical)
            } else if canonical == .passwordManagerHint {
                // Offered but unreadable: taken as secret, as the watchers do (PasteboardChange.reading).
                item.setData(Data("secret".utf8), for: .passwordManagerHint)
            }
        }
        return item
    }
}

/// Runs blocking work (a display-server round trip, a child process) on a thread of its own, so it never holds one
/// of the few threads of Swift's cooperative pool.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.name = "huddle-pasteboard"
        thread.start()
    }
}
