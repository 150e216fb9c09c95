import Huddle
import HuddleApp
import HuddleClipboard
import HuddlePasteboard
import HuddleWire

extension Daemon {
    /// `huddle clip share` while the daemon syncs the clipboard (docs/daemon.md, "The clipboard"): the daemon's
    /// clipboard session finds the machine and shares the item there, so the command needs no session of its own.
    func shareClipboard(_ request: ControlRequest, _ replies: ControlReplies) async -> Int32 {
        guard let clipboard else { return ExitStatus.unavailable.rawValue }
        let sync = clipboard.sync
        let peer: PeerID
        do {
            let limit = Duration.seconds(min(max(request.waitSeconds ?? 15, 0), 600))
            peer = try await Rendezvous(session: sync.session).connect(to: request.to?.first, within: limit)
        } catch {
            await replies.error("\(error)")
            return ExitStatus(for: error).rawValue
        }
        let name = await sync.session.displayName(for: peer) ?? peer.rawValue
        if request.peek == true {
            await replies.line(name)
            return ExitStatus.success.rawValue
        }
        let item: PasteboardItem
        do {
            item = try await clipboard.pasteboard.itemToShare(in: clipboard.selection).keeping(type: request.itemType)
        } catch {
            await replies.error("\(error)")
            return ExitStatus(for: error).rawValue
        }
        guard request.digest == nil || request.digest == ClipboardItemFilter.digest(of: item) else {
            await replies.error("the clipboard changed since it was shown: nothing shared; share it again")
            return ExitStatus.dataError.rawValue
        }
        await waitUntilConnected(peer, sync)
        do {
            try await sync.share(item, to: peer)
            say("→ shared \(ClipItemSummary(item)) with \(name), who took it", clipboard)
            await replies.line("\(name) took it")
            return ExitStatus.success.rawValue
        } catch ClipboardSyncError.declined(let reason) {
            await replies.error("\(name) declined: \(reason)")
            return ExitStatus.failure.rawValue
        } catch let error as ClipboardSyncError {
            await replies.error("\(error)")
            return ExitStatus.failure.rawValue
        } catch {
            await replies.error("\(name) did not take it: \(error)")
            return ExitStatus(for: error).rawValue
        }
    }

    /// The sync's own view of a connection follows the session's events: waits (at most 5 s) for it to catch up.
    func waitUntilConnected(_ peer: PeerID, _ sync: ClipboardSync) async {
        let events = sync.events
        guard await !sync.connectedPeers.contains(peer) else { return }
        _ = try? await events.first(until: .now + .seconds(5)) { event -> Bool? in
            if case .peerConnected(peer, _) = event { return true }
            return nil
        }
    }
}
