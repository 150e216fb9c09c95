public import Foundation
public import HuddleDaemon
import Synchronization

/// What the page reads and does, as closures (docs/web.md): the daemon's, or a test's.
public struct PageBackend: Sendable {
    public var state: @Sendable () async -> PageState
    /// Answers a waiting question; false when none has that number.
    public var answer: @Sendable (_ question: Int, _ accept: Bool) async -> Bool
    /// Takes an entry out of the outbox; false when none has that ID.
    public var cancel: @Sendable (_ id: String) async -> Bool
    /// Sends the file at `path` to the device called `name` (what `send --to` takes), telling `progress` how far it
    /// is as it goes: the daemon's exit status, its lines, and whether the file was queued (then it must stay where
    /// it is until delivered).
    public var send:
        @Sendable (_ path: String, _ name: String, _ progress: @escaping PageSendProgress) async -> PageSendResult
    /// Where files uploaded by the page wait to be sent (made owner-only).
    public var uploads: URL
    /// The files `huddle ui FILE…` staged under an ID (``StagedSends``), and sending them to a device.
    public var staged: @Sendable (_ id: String) -> StagedSends.Staged? = { _ in nil }
    public var sendStaged: @Sendable (_ id: String, _ name: String) async -> PageSendResult? = { _, _ in nil }
    /// Says a chat line to every connected Huddle peer: nil when it went, else why not.
    public var say: @Sendable (_ text: String) async -> String? = { _ in "the chat is not here" }
    /// Shows a new code for a phone (a new pass) whose page offers these files (none: nothing): nil when it did,
    /// else why not.
    public var showPhoneCode: @Sendable (_ files: [URL]) async -> String? = { _ in "the page for a phone is not here" }
    /// Issues a pairing link for the page to show: nil when it was, else why not.
    public var issuePairingLink: @Sendable () async -> String? = { "pairing is not here" }
    public var now: @Sendable () -> Date

    public init(
        state: @escaping @Sendable () async -> PageState,
        answer: @escaping @Sendable (Int, Bool) async -> Bool,
        cancel: @escaping @Sendable (String) async -> Bool,
        send: @escaping @Sendable (String, String, @escaping PageSendProgress) async -> PageSendResult,
        uploads: URL,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        (self.state, self.answer, self.cancel, self.now) = (state, answer, cancel, now)
        (self.send, self.uploads) = (send, uploads)
    }

    /// The daemon's state and actions.
    public init(daemon: Daemon) {
        self.init(
            state: { await daemon.pageState() },
            answer: { await daemon.questions.answer($0, accept: $1) },
            cancel: { (try? daemon.outbox.remove($0)) ?? false },
            send: { path, name, progress in await Self.send([path], to: name, through: daemon, progress: progress) },
            uploads: daemon.outbox.uploads
        )
        staged = { daemon.staged.staged($0) }
        say = { text in await daemon.sayFromPage(text) }
        showPhoneCode = { files in
            do {
                if try await daemon.showPhoneCode(offering: files).isEmpty {
                    return
                        "the page for a phone is not running (phone-page = false or localsend = false in config.toml)"
                }
            } catch { return "cannot offer the files to the phone: \(error)" }
            return nil
        }
        issuePairingLink = {
            do { _ = try await daemon.issuePairingLinkForPage() } catch { return "\(error)" }
            return nil
        }
        sendStaged = { id, name in
            guard let set = daemon.staged.staged(id) else { return nil }
            let result = await Self.send(set.paths, to: name, through: daemon)
            daemon.staged.record(id, said: result.lines)
            return result
        }
    }

    /// `paths` sent to `name` through the daemon as `huddle send` would be, its progress told to `progress`.
    static func send(
        _ paths: [String],
        to name: String,
        through daemon: Daemon,
        progress: @escaping PageSendProgress = { _ in }
    ) async -> PageSendResult {
        var request = ControlRequest(.send)
        (request.paths, request.to, request.progress) = (paths, [name], true)
        let said = Mutex<[String]>([])
        let status = await daemon.handle(
            request,
            ControlReplies { reply in
                if let step = reply.progress { progress(step) }
                said.withLock { $0 += [reply.line, reply.error].compactMap { $0 } }
            }
        )
        let queued = daemon.outbox.entries.contains { paths.contains($0.path) }
        return PageSendResult(status: status, lines: said.withLock { $0 }, queued: queued)
    }
}

/// Told how far a send from the page is (``ControlProgress``: a reply each hundredth).
public typealias PageSendProgress = @Sendable (ControlProgress) -> Void

/// What a send from the page came to, as the last line of `/upload`'s answer.
public struct PageSendResult: Sendable, Equatable, Encodable {
    public var status: Int32
    public var lines: [String]
    public var queued: Bool

    public init(status: Int32, lines: [String], queued: Bool) {
        (self.status, self.lines, self.queued) = (status, lines, queued)
    }
}
