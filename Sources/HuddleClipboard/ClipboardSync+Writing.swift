import Foundation
@_spi(Testing) import Huddle
import HuddlePasteboard

extension ClipboardSync {
    /// Puts an item on the clipboard; a failure is reported, not thrown (sync goes on).
    ///
    /// Writes are serialised and the last one asked for is the one that stays: a write takes a moment off the
    /// actor, and a newer item decided meanwhile must not be overtaken by the older write finishing later. Writes
    /// start at least `minimumWriteInterval` apart (`docs/security.md` §5 J2): a peer sending a thousand items a
    /// second gets at most ten a second onto this clipboard, the newest each time, and only that one item waits.
    /// The interval is measured on the session's clock (the monotonic clock; tests move it by hand).
    /// A write that is due happens before this returns; a later one in the background, so that receiving goes on.
    func write(_ item: PasteboardItem, what: String) async {
        guard pasteboard != nil else { return }
        wantedWrite = (item, what)
        lastWrite = Date()
        guard !writerBusy else { return }
        writerBusy = true
        if writeDelay() == nil { await writeWanted() }
        guard wantedWrite != nil else {
            writerBusy = false
            return
        }
        Task { await self.writeLater() }
    }

    /// How long until the next write may start, or nil when it may start now.
    func writeDelay() -> Duration? {
        guard let lastWriteStarted else { return nil }
        let due = lastWriteStarted + configuration.minimumWriteInterval
        let now = session.clock.now
        return due > now ? now.duration(to: due) : nil
    }

    /// Writes the newest wanted item each time the interval allows, until none is left.
    func writeLater() async {
        while wantedWrite != nil {
            if let delay = writeDelay() {
                let clock = session.clock
                try? await clock.sleep(until: clock.now + delay)
            }
            await writeWanted()
        }
        writerBusy = false
    }

    /// Writes the newest wanted item.
    func writeWanted() async {
        guard let pasteboard, let wanted = wantedWrite else { return }
        wantedWrite = nil
        lastWriteStarted = session.clock.now
        do {
            try await pasteboard.write(wanted.item, to: configuration.selection)
        } catch {
            emit.yield(.problem("could not put \(wanted.what) on the clipboard: \(error)"))
        }
        lastWrite = Date()
    }
}
