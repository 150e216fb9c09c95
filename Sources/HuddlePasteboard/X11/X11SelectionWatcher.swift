#if os(Linux) || os(FreeBSD) || os(OpenBSD)
import Foundation
import Glibc
import Synchronization

/// Watches one X11 selection with XFixes selection-owner events, on a thread of its own.
///
/// XFixes (protocol version 1, "Selection Tracking") sends `XFixesSelectionNotify` when a selection's owner
/// changes (`SetSelectionOwner`), its window is destroyed or its client closes. Between events the thread is
/// blocked in `poll(2)` on the connection's socket and a wake-up pipe: no timer, no CPU while nothing changes.
/// On each change the new item's known representations are read on the same connection; changes made by owners in
/// this process (``X11SelectionOwner/ownWindows``) are skipped, so a program that writes what it watched does not
/// loop.
enum X11SelectionWatcher {
    /// `XFixesSetSelectionOwnerNotifyMask | XFixesSelectionWindowDestroyNotifyMask |
    /// XFixesSelectionClientCloseNotifyMask` (Xfixes.h).
    static let eventMask: UInt = 0b111

    /// The watcher thread's name (at most 15 bytes, as Linux keeps it).
    static let threadName = "huddle-x11watch"

    static func start(
        pasteboard: X11Pasteboard,
        selection: PasteboardSelection
    ) throws -> AsyncStream<
        PasteboardChange
    > {
        let connection = try X11Connection(displayName: pasteboard.displayName)
        var eventBase: Int32 = 0
        var errorBase: Int32 = 0
        guard connection.lib.fixesQueryExtension(connection.display, &eventBase, &errorBase) != 0 else {
            throw PasteboardError(.displayUnavailable, "the X server \(pasteboard.displayName) has no XFixes extension")
        }
        let selectionAtom = connection.atom(selection.rawValue)
        connection.lib.fixesSelectSelectionInput(connection.display, connection.window, selectionAtom, Self.eventMask)
        // A round trip, not just a flush: once this returns the server has the subscription, so any change made
        // after `changes(of:)` returned is reported (a flushed request may still wait in the server's queue).
        _ = connection.lib.sync(connection.display, 0)
        guard let wake = closeOnExecPipe() else { throw PasteboardError.storage("pipe", errno: errno) }
        let (stream, continuation) = AsyncStream.makeStream(of: PasteboardChange.self, bufferingPolicy: .unbounded)
        let (wakeRead, wakeWrite) = wake
        let notifyType = eventBase  // XFixesSelectionNotify is event 0 of the extension
        continuation.onTermination = { _ in
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
        let box = UncheckedBox(connection)
        let thread = Thread {
            // Tests find the thread by its name (its CPU time while idle, its state).
            nameCurrentThread(Self.threadName)
            let loop = WatchLoop(
                connection: box.value,
                pasteboard: pasteboard,
                selection: selection,
                notifyType: notifyType
            )
            loop.run(wake: wakeRead, continuation: continuation)
            box.value.close()
            close(wakeRead)
            close(wakeWrite)
        }
        thread.start()
        return stream
    }
}

private struct WatchLoop {
    let connection: X11Connection
    let pasteboard: X11Pasteboard
    let selection: PasteboardSelection
    let notifyType: Int32

    func run(wake: Int32, continuation: AsyncStream<PasteboardChange>.Continuation) {
        let lib = self.connection.lib
        var sequence = 0
        var event = XEvent()
        while true {
            while lib.pending(self.connection.display) > 0 {
                _ = event.withPointer { lib.nextEvent(self.connection.display, $0) }
                guard event.type == self.notifyType else { continue }
                let owner = event.fixesOwner
                let own = X11SelectionOwner.OwnWindow(
                    display: self.connection.displayName,
                    window: owner,
                    time: event.fixesSelectionTimestamp
                )
                if owner != 0 && X11SelectionOwner.ownWindows.withLock({ $0.contains(own) }) { continue }
                sequence += 1
                continuation.yield(self.change(owner: owner, sequence: sequence))
            }
            if self.connection.isBroken || self.connection.poll(timeoutMilliseconds: -1, wake: wake) {
                continuation.finish()
                return
            }
        }
    }

    /// The new item: its types, then the known representations unless the item is marked secret or its secret
    /// marker cannot be read (``PasteboardChange/reading(types:sequence:read:)``).
    private func change(owner: XID, sequence: Int) -> PasteboardChange {
        guard owner != 0,
            let offered = try? self.connection.targets(
                selection: self.selection.rawValue,
                timeout: self.pasteboard.timeout
            )
        else {
            return PasteboardChange(item: PasteboardItem(), types: [], isSecret: false, sequence: sequence)
        }
        let types = offered.filter { !X11Pasteboard.metaTargets.contains($0) }.map(PasteboardType.init(rawValue:))
        return PasteboardChange.reading(types: types, sequence: sequence) { try self.read($0, offered) }
    }

    private func read(_ type: PasteboardType, _ offered: [String]) throws -> Data {
        try self.pasteboard.read(type, offered: offered, self.connection, self.selection)
    }
}

/// Names the calling thread, as `ps -L` and `/proc/self/task/*/comm` show it (at most 15 bytes on Linux).
///
/// Not through Foundation: on Linux `Thread.name` set before `start()` is never applied, and set from inside the
/// thread it is lost now and then (the Thread object learns its pthread only after the thread has started).
private func nameCurrentThread(_ name: String) {
    typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np") else { return }
    _ = unsafeBitCast(symbol, to: SetName.self)(pthread_self(), name)
}
#endif
