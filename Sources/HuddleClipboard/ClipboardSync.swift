public import Foundation
public import Huddle
public import HuddlePasteboard
import HuddleWire
public import ServiceLifecycle

/// Clipboard sharing and continuous sync between the peers of a ``PeerSession``.
///
/// Embedding sync in an app takes a few lines:
///
/// ```swift
/// var configuration = PeerSessionConfiguration()
/// configuration.connectsToFoundPeers = true  // keep in step with every machine found
/// let session = try await PeerSession.loadingIdentity(
///     sessionID: "Clipboard", displayName: "Ada", configuration: configuration)
/// try await session.start()
/// let sync = ClipboardSync(session: session, pasteboard: try SystemPasteboard.make())
/// Task { for await event in sync.events { print(event) } }
/// try await sync.run()
/// ```
///
/// A copy on this machine goes to every connected trusted peer; theirs come here; the newest copy wins everywhere
/// (``ClipboardSyncCore``). Items marked secret never leave; items over the size cap or of unsynced kinds are refused
/// and the refusal is reported on both sides. A peer that connects (or reconnects) gets the current item only, never
/// the history.
///
/// `ClipboardSync` subscribes to the session's events when it is made (so it misses none); connection requests
/// come out as ``ClipboardSyncEvent/connectionRequest(_:)`` for the app to answer.
public actor ClipboardSync: Service {
    public nonisolated let session: PeerSession
    public nonisolated let configuration: ClipboardSyncConfiguration
    /// What happened, for the user to see: each access is a subscription of its own, holding at most the newest
    /// 1,024 events it has not taken; events from before the first subscription wait for it.
    public nonisolated var events: EventSubscription<ClipboardSyncEvent> { emit.subscribe() }
    let pasteboard: (any GeneralPasteboard)?
    /// The sync's own subscription to the session's events, taken at init so that it misses none.
    let sessionEvents: PeerSessionEvents
    let emit = EventBroadcast<ClipboardSyncEvent>(bufferLimit: 1024)
    let wallClock: @Sendable () -> UInt64
    var core: ClipboardSyncCore
    /// The newest item's content, for peers that connect later.
    var currentItem: PasteboardItem?
    /// Shares sent from here, waiting for their answer.
    var shareWaiters: [ClipStamp: (peer: PeerID, continuation: CheckedContinuation<Void, any Error>)] = [:]
    var connected: Set<PeerID> = []
    /// Items arriving as in-memory transfers, by transfer.
    var incomingItems: [TransferID: PeerID] = [:]
    /// When this machine last wrote to the clipboard.
    var lastWrite: Date?
    /// When the last write to the clipboard started (the flood limit counts from it).
    var lastWriteStarted: ContinuousClock.Instant?
    /// The item the clipboard should end up holding, while a write is under way or waits for its turn.
    var wantedWrite: (item: PasteboardItem, what: String)?
    var writerBusy = false
    /// Clipboards of devices that speak another protocol, kept in step through this machine, by ID.
    var linked: [String: LinkedClipboard] = [:]

    /// - Parameters:
    ///   - pasteboard: the clipboard to keep in step; nil to only exchange deliberate shares (e.g. to save them
    ///     to files).
    ///   - wallClock: milliseconds since 1970; injected for tests.
    public init(
        session: PeerSession,
        pasteboard: (any GeneralPasteboard)?,
        configuration: ClipboardSyncConfiguration = ClipboardSyncConfiguration(),
        wallClock: @escaping @Sendable () -> UInt64 = { UInt64(max(0, Date().timeIntervalSince1970 * 1000)) }
    ) {
        self.session = session
        self.pasteboard = pasteboard
        self.configuration = configuration
        self.wallClock = wallClock
        self.core = ClipboardSyncCore(origin: session.peerID.rawValue)
        self.sessionEvents = session.events
    }

    /// Runs until cancelled, until its service group shuts down gracefully (it is a swift-service-lifecycle
    /// `Service`), or until the clipboard watch or the session ends: watches the clipboard when syncing, and
    /// follows the session. The session itself is the caller's: run it in the same group, before this.
    public func run() async throws {
        try await cancelWhenGracefulShutdown { try await self.follow() }
    }

    func follow() async throws {
        var changes: AsyncStream<PasteboardChange>?
        if configuration.syncs, let pasteboard {
            changes = try pasteboard.changes(of: configuration.selection)
            let present = try? await pasteboard.item(in: configuration.selection)
            if let present, !present.isEmpty, case .admit(let item) = configuration.filter.admit(present) {
                core.start(withClipboard: ClipboardItemFilter.digest(of: item))
            }
        }
        await withTaskGroup(of: Void.self) { group in
            if let changes {
                group.addTask {
                    for await change in changes { await self.localChange(change) }
                }
            }
            group.addTask {
                for await event in self.sessionEvents { await self.handle(event) }
            }
            _ = await group.next()
            group.cancelAll()
        }
        for (_, waiter) in shareWaiters { waiter.continuation.resume(throwing: CancellationError()) }
        shareWaiters.removeAll()
        emit.finish()
    }

    /// The stamp of the newest item known, if any.
    public var currentStamp: ClipStamp? { core.current?.stamp }

    /// The newest item's text, when the newest item is the one of `stamp` and has text.
    public func currentText(stamp: ClipStamp?) -> String? {
        guard let stamp, core.current?.stamp == stamp else { return nil }
        return currentItem?.string
    }

    func localChange(_ change: PasteboardChange) async {
        guard !change.isEmpty else { return }
        let summary = ClipItemSummary(change.item)
        if change.isSecret {
            emit.yield(.notShared(summary, reason: "it is marked secret by a password manager"))
            return
        }
        let item: PasteboardItem
        switch configuration.filter.admit(change.item) {
        case .refuse(let reason):
            emit.yield(.notShared(summary, reason: reason))
            return
        case .admit(let admitted):
            item = admitted
        }
        guard case .share(let stamp) = core.localChange(digest: ClipboardItemFilter.digest(of: item), now: wallClock())
        else { return }
        currentItem = item
        // The watcher reads an item a moment after its owner took the clipboard; if a peer's item was written
        // here meanwhile, the clipboard may now hold that one while this newer copy goes to everyone else. Put
        // the winner back so this machine ends where the others do.
        if writerBusy || lastWrite.map({ $0.addingTimeInterval(Self.writeRaceWindow) > change.date }) == true {
            await write(item, what: "this copy")
        }
        await deliverToLinked(item, stamp: stamp)
        let peers = trustedConnectedPeers()
        guard !peers.isEmpty else { return }
        await send(.sync(stamp, item), to: peers)
        emit.yield(.shared(ClipItemSummary(item, stamp: stamp), to: await names(peers)))
    }

    /// How close before a local change a write of ours must be to have possibly replaced it.
    static let writeRaceWindow: TimeInterval = 1

    func trustedConnectedPeers(except excluded: PeerID? = nil) -> [PeerID] {
        connected.filter { $0 != excluded }.sorted()
    }

    /// Sends a message: as one session message when small, else as an in-memory transfer to each peer (in the
    /// background, with progress; a failure is reported).
    func send(_ message: ClipMessage, to peers: [PeerID]) async {
        let bytes = message.encoded()
        guard bytes.count > ClipMessage.largestDirectMessage else {
            do {
                try await session.send(bytes, to: peers)
            } catch {
                emit.yield(.problem("could not send to \(await names(peers).joined(separator: ", ")): \(error)"))
            }
            return
        }
        let data = Data(bytes)
        for peer in peers {
            let name = await name(peer)
            let (session, emit) = (self.session, self.emit)
            Task {
                do {
                    try await session.sendData(data, named: "clipboard item", to: peer, type: ClipMessage.transferType)
                } catch {
                    emit.yield(.problem("could not send the item to \(name): \(error)"))
                    self.failShare(message.stamp, peer: peer, error: error)
                }
            }
        }
    }

    /// A share whose data could not be sent ends its waiter with the error.
    func failShare(_ stamp: ClipStamp, peer: PeerID, error: any Error) {
        guard let waiter = shareWaiters[stamp], waiter.peer == peer else { return }
        shareWaiters[stamp] = nil
        waiter.continuation.resume(throwing: error)
    }

    func name(_ peer: PeerID) async -> String {
        await session.displayName(for: peer) ?? peer.rawValue
    }

    func names(_ peers: [PeerID]) async -> [String] {
        var names: [String] = []
        for peer in peers { names.append(await name(peer)) }
        return names
    }
}
