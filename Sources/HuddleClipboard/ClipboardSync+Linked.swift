import Foundation
import Huddle
import HuddlePasteboard

/// A clipboard of a device that speaks another protocol (a KDE Connect phone), kept in step through this machine.
struct LinkedClipboard: Sendable {
    let name: String
    /// Puts a text on the device's clipboard: with the time it was copied (milliseconds since 1970) when it is the
    /// current item sent as the link starts, nil for a fresh copy.
    let deliver: @Sendable (_ text: String, _ copiedAt: UInt64?) async -> Void
}

/// Devices that speak another protocol take part in sync through this machine, as if their clipboard were a second
/// clipboard here: a copy there counts as a local copy (a fresh stamp, shared with every peer and every other
/// linked device), and the newest item from anywhere goes to them. Their protocols carry text without stamps, so
/// they take text only, and a device's copy that is what this machine holds already is ignored, like a local copy
/// of the same content: an echo of an item sent there never comes back as a new one.
extension ClipboardSync {
    /// Links the clipboard of a device that speaks another protocol (`id` names it; linking the same `id` again
    /// replaces it). It gets the current item at once, when it has text, with the time it was copied, so that the
    /// device keeps whichever is newer; then every newer item with text. Its copies come in through
    /// ``linkedClipboardChanged(_:copiedAt:from:)``.
    public func linkClipboard(
        _ id: String,
        name: String,
        deliver: @escaping @Sendable (_ text: String, _ copiedAt: UInt64?) async -> Void
    ) async {
        linked[id] = LinkedClipboard(name: name, deliver: deliver)
        guard configuration.syncs, let current = core.current, let text = currentItem?.string,
            core.sendsCurrent(now: wallClock())
        else { return }
        await deliver(text, current.stamp.time)
        emit.yield(.shared(ClipItemSummary(PasteboardItem(text: text), stamp: current.stamp), to: [name]))
    }

    /// Stops keeping the device's clipboard in step (it unpaired or went away).
    public func unlinkClipboard(_ id: String) {
        linked[id] = nil
    }

    /// The linked clipboard `id` holds `text`: a fresh copy there (`copiedAt` nil), or what it held when the link
    /// started, copied at `copiedAt` (milliseconds since 1970) and taken only when that is later than the current
    /// item here.
    public func linkedClipboardChanged(_ text: String, copiedAt: UInt64?, from id: String) async {
        guard configuration.syncs, pasteboard != nil, let source = linked[id] else { return }
        let offered = PasteboardItem(text: text)
        let item: PasteboardItem
        switch configuration.filter.admit(offered) {
        case .refuse(let reason):
            emit.yield(.notTaken(ClipItemSummary(offered), from: source.name, reason: reason))
            return
        case .admit(let admitted):
            item = admitted
        }
        if let copiedAt, let current = core.current, current.stamp.time >= copiedAt { return }
        guard case .share(let stamp) = core.localChange(digest: ClipboardItemFilter.digest(of: item), now: wallClock())
        else { return }
        currentItem = item
        await write(item, what: "\(source.name)'s copy")
        emit.yield(.taken(ClipItemSummary(item, stamp: stamp), from: source.name))
        await deliverToLinked(item, stamp: stamp, except: id)
        let peers = trustedConnectedPeers()
        guard !peers.isEmpty else { return }
        await send(.sync(stamp, item), to: peers)
        emit.yield(.shared(ClipItemSummary(item, stamp: stamp), to: await names(peers)))
    }

    /// The linked clipboards that hold a device's copies now.
    public var linkedClipboards: [String] { linked.keys.sorted() }

    /// Sends the newest item to every linked clipboard but `except`, when it has text.
    func deliverToLinked(_ item: PasteboardItem, stamp: ClipStamp, except: String? = nil) async {
        guard let text = item.string else { return }
        let targets = linked.filter { $0.key != except }.sorted { $0.key < $1.key }
        guard !targets.isEmpty else { return }
        for (_, target) in targets { await target.deliver(text, nil) }
        emit.yield(.shared(ClipItemSummary(PasteboardItem(text: text), stamp: stamp), to: targets.map(\.value.name)))
    }
}
