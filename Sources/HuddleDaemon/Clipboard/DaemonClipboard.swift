import HuddleApp
import HuddleBase
public import HuddleClipboard
public import HuddlePasteboard
import NIOConcurrencyHelpers

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
    /// The `huddle clip receive` commands waiting for shares, and where their replies go.
    public let claims = ClipClaims()
    let claimants = NIOLockedValueBox<[Int: ClipClaimant]>([:])
    /// Subscribed when made, so that nothing from the session's start is missed.
    let events: EventSubscription<ClipboardSyncEvent>

    public init(sync: ClipboardSync, pasteboard: any GeneralPasteboard, selection: PasteboardSelection = .clipboard) {
        (self.sync, self.pasteboard, self.selection) = (sync, pasteboard, selection)
        events = sync.events
    }
}

extension ControlClient {
    /// Sends a request the daemon answers only when it syncs the clipboard (`clipboard`, `clipShare`), saying each
    /// reply; nil, with nothing said, when it does not (the command then does the work itself).
    /// - Throws: ``DaemonError`` when the daemon cannot be reached.
    public func ifSyncingClipboard(
        _ request: ControlRequest,
        say: @escaping @Sendable (ControlReply) -> Void
    ) async throws -> Int32? {
        let answered = NIOLockedValueBox(false)
        let status = try await send(request) { reply in
            answered.withLockedValue { $0 = true }
            say(reply)
        }
        return status == ExitStatus.unavailable.rawValue && !answered.withLockedValue({ $0 }) ? nil : status
    }
}

/// `huddle clip share` while the daemon syncs the clipboard (docs/daemon.md, "The clipboard"): the daemon finds the
/// machine, the command asks its user, the daemon shares what its clipboard holds if it is still `item`.
public enum DaemonClipShare {
    /// The share's exit status; nil, with nothing said, when the daemon does not sync the clipboard.
    /// - Parameter confirm: asks the user whether to share with the machine named.
    /// - Throws: ``DaemonError`` when the daemon cannot be reached.
    public static func run(
        _ client: ControlClient,
        to: String?,
        type: String?,
        wait: Double,
        item: PasteboardItem,
        confirm: (String) async -> Bool,
        say: @escaping @Sendable (ControlReply) -> Void
    ) async throws -> Int32? {
        var request = ControlRequest(.clipShare)
        (request.to, request.waitSeconds, request.itemType, request.peek) = (to.map { [$0] }, wait, type, true)
        let found = NIOLockedValueBox<String?>(nil)
        let status = try await client.ifSyncingClipboard(request) { reply in
            if let line = reply.line { found.withLockedValue { $0 = line } } else { say(reply) }
        }
        guard let status else { return nil }
        guard status == ExitStatus.success.rawValue, let name = found.withLockedValue({ $0 }) else { return status }
        guard await confirm(name) else {
            say(.line("not shared"))
            return ExitStatus.failure.rawValue
        }
        (request.peek, request.digest) = (nil, ClipboardItemFilter.digest(of: item))
        return try await client.send(request) { say($0) }
    }
}
