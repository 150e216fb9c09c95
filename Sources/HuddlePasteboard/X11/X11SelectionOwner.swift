#if os(Linux) || os(FreeBSD) || os(OpenBSD)
import Foundation
import Glibc
import Synchronization

/// Owns one X11 selection and answers conversion requests for it on a thread of its own, until another program
/// takes the selection, ``release()`` is called, or the process exits (ICCCM §2.2 "Responsibilities of the
/// Selection Owner").
///
/// Each write makes a new owner with its own connection; the previous owner learns from `SelectionClear` that it
/// lost the selection and ends once its transfers in progress are done.
final class X11SelectionOwner: Sendable {
    /// Windows that owned a selection in this process: a watcher skips changes they make (no echo).
    ///
    /// Keyed by display too: every X server hands out the same window ids to its clients, so a window id alone
    /// would mistake another server's client for ours. And by the ownership's timestamp: a server reuses a
    /// closed client's id range for the next client, so a program that connects after one of our owners ended
    /// (xclip copying right after us) can own the selection with the very same window id.
    static let ownWindows = Mutex<Set<OwnWindow>>([])

    struct OwnWindow: Hashable {
        var display: String
        var window: XID
        /// The server time given in SetSelectionOwner (XFixes reports it as `selection_timestamp`).
        var time: XID
    }

    let window: XID
    let selection: String
    private let wakePipe: (read: Int32, write: Int32)
    private let finished = Mutex<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    /// Takes `selection` on `displayName` and starts serving `item`.
    ///
    /// - Throws: ``PasteboardError`` when the display cannot be reached or another client won the selection.
    init(item: PasteboardItem, selection: String, displayName: String?) throws {
        let connection = try X11Connection(displayName: displayName)
        let time = connection.serverTime()
        let selectionAtom = connection.atom(selection)
        // Registered before the server can announce the change, so a watcher in this process never sees its own
        // write as foreign. Kept after the owner ends: an event about it may still be queued in a watcher.
        Self.ownWindows.withLock {
            _ = $0.insert(OwnWindow(display: connection.displayName, window: connection.window, time: XID(time)))
        }
        _ = connection.lib.setSelectionOwner(connection.display, selectionAtom, connection.window, time)
        guard connection.lib.getSelectionOwner(connection.display, selectionAtom) == connection.window else {
            throw PasteboardError(.transferFailed, "could not take the \(selection) selection")
        }
        guard let wake = closeOnExecPipe() else { throw PasteboardError.storage("pipe", errno: errno) }
        self.window = connection.window
        self.selection = selection
        self.wakePipe = wake
        let server = X11SelectionServer(
            connection: UncheckedBox(connection),
            contents: X11SelectionContents(item: item),
            selection: selectionAtom,
            time: time
        )
        let thread = Thread { [self] in
            server.run(wake: self.wakePipe.read)
            server.connection.value.close()
            self.finished.withLock { $0 = true }
            self.done.signal()
        }
        thread.name = "huddle-x11-owner"
        thread.start()
    }

    deinit {
        close(self.wakePipe.read)
        close(self.wakePipe.write)
    }

    /// Whether the owner stopped serving (selection lost or released).
    var isFinished: Bool { self.finished.withLock { $0 } }

    /// Gives up the selection (if still ours) and stops serving.
    func release() {
        var byte: UInt8 = 1
        _ = write(self.wakePipe.write, &byte, 1)
        self.waitUntilFinished()
    }

    /// Blocks until the owner stops serving.
    func waitUntilFinished() {
        guard !self.isFinished else { return }
        self.done.wait()
        self.done.signal()  // later callers return at once
    }
}

#endif
