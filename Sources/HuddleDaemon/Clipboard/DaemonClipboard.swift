import HuddleApp
public import HuddleBase
public import HuddleClipboard
public import HuddlePasteboard

/// The daemon's clipboard sync (`clip-sync = true`, docs/daemon.md, "The clipboard"): a ``ClipboardSync`` over a
/// session of its own (the clipboard commands' session, so `huddle clip` on other machines meets it), the clipboard
/// it keeps in step, and what came and went.
public struct DaemonClipboard: Sendable {
    public let sync: ClipboardSync
    /// The clipboard shared items are put on (the one the sync watches).
    public let pasteboard: any GeneralPasteboard
    public let selection: PasteboardSelection
    /// The newest items that came and went.
    public let book = ClipboardBook()
    /// The `huddle clip sync` commands following it.
    public let listeners = LineListeners()
    /// Subscribed when made, so that nothing from the session's start is missed.
    let events: EventSubscription<ClipboardSyncEvent>

    public init(sync: ClipboardSync, pasteboard: any GeneralPasteboard, selection: PasteboardSelection = .clipboard) {
        (self.sync, self.pasteboard, self.selection) = (sync, pasteboard, selection)
        events = sync.events
    }
}

extension ControlClient {
    /// `huddle clip sync` while a daemon runs (docs/daemon.md, "The clipboard"): follows the daemon's clipboard
    /// sync, saying each line, until the daemon stops; false at once, with nothing said, when the daemon does not
    /// sync the clipboard (the command then syncs by itself).
    /// - Throws: ``DaemonError`` when the daemon cannot be reached.
    public func followClipboard(say: @escaping @Sendable (String) -> Void) async throws -> Bool {
        let status = try await send(ControlRequest(.clipboard)) { reply in
            if let line = reply.line { say(line) }
        }
        return status != ExitStatus.unavailable.rawValue
    }
}
