#if os(Linux) || os(FreeBSD) || os(OpenBSD)
import Foundation
import Glibc

/// One connection to an X server with one unmapped window of our own, used from one thread at a time.
///
/// Every selection transfer needs a window: the requestor names it in `ConvertSelection` and the owner writes the
/// data into one of its properties (ICCCM §2.4). Waiting for an event never spins: the connection's socket is passed
/// to `poll(2)` (with an optional wake-up pipe), so a blocked connection costs no CPU.
final class X11Connection {
    let lib: XlibLibrary
    let display: XlibLibrary.Display
    /// The display name the connection was opened with (`:0`).
    let displayName: String
    /// Our window (1×1, never mapped).
    let window: XID
    /// Set when the connection to the server was lost (the server exited): loops using it end.
    private(set) var isBroken = false
    private var atoms: [String: XID] = [:]
    private var names: [XID: String] = [:]

    /// Opens a connection to `displayName` (`:0`), or to `$DISPLAY` when nil.
    init(displayName: String?) throws {
        let lib = try XlibLibrary.shared.get()
        let name = displayName ?? ProcessInfo.processInfo.environment["DISPLAY"]
        guard let name, !name.isEmpty else {
            throw PasteboardError(.noBackend, "DISPLAY is not set: no X server to talk to")
        }
        guard let display = name.withCString({ lib.openDisplay($0) }) else {
            throw PasteboardError(.displayUnavailable, "cannot open X display \(name) (is the X server running?)")
        }
        self.lib = lib
        self.display = display
        self.displayName = name
        let root = lib.defaultRootWindow(display)
        self.window = lib.createSimpleWindow(display, root, 0, 0, 1, 1, 0, 0, 0)
        _ = lib.selectInput(display, self.window, XEvent.Mask.propertyChange)
        // Without this, Xlib calls exit(1) when the server goes away, taking the whole program with it.
        lib.setIOErrorExitHandler?(
            display,
            { _, context in
                guard let context else { return }
                Unmanaged<X11Connection>.fromOpaque(context).takeUnretainedValue().isBroken = true
            },
            Unmanaged.passUnretained(self).toOpaque()
        )
    }

    private var isClosed = false

    deinit { self.close() }

    /// Closes the connection now (owners and watchers do, before they report that they ended).
    func close() {
        guard !self.isClosed else { return }
        self.isClosed = true
        // A broken display must not be written to again; its memory is left to the process's end.
        guard !self.isBroken else { return }
        _ = self.lib.destroyWindow(self.display, self.window)
        _ = self.lib.closeDisplay(self.display)
    }

    /// The socket of the connection (`ConnectionNumber`).
    var fileDescriptor: Int32 { self.lib.connectionNumber(self.display) }

    /// The atom for a name, interned once per connection.
    func atom(_ name: String) -> XID {
        if let atom = self.atoms[name] { return atom }
        let atom = name.withCString { self.lib.internAtom(self.display, $0, 0) }
        self.atoms[name] = atom
        self.names[atom] = name
        return atom
    }

    /// The name of an atom, or nil for `None` or an unknown atom.
    func name(of atom: XID) -> String? {
        guard atom != 0 else { return nil }
        if let name = self.names[atom] { return name }
        guard let pointer = self.lib.getAtomName(self.display, atom) else { return nil }
        let name = String(cString: pointer)
        _ = self.lib.free(pointer)
        self.names[atom] = name
        self.atoms[name] = atom
        return name
    }

    /// The largest property payload one request can carry, in bytes: the limit above which ICCCM §2.5 asks for INCR.
    ///
    /// `XMaxRequestSize` counts 4-byte units; a margin covers the request header. BIG-REQUESTS is not used for the
    /// threshold, so transfers stay within what every client can read in one piece.
    var maximumPropertyBytes: Int {
        max(4096, self.lib.maxRequestSize(self.display) * 4 - 1024)
    }

    func flush() { _ = self.lib.flush(self.display) }

    /// Waits for the next event of `type` on `window`, leaving other events queued.
    ///
    /// - Returns: nil when `deadline` passed first.
    func waitForEvent(type: Int32, window: XID, deadline: ContinuousClock.Instant) -> XEvent? {
        var event = XEvent()
        while !self.isBroken {
            let found = event.withPointer { self.lib.checkTypedWindowEvent(self.display, window, type, $0) }
            if found != 0 { return event }
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return nil }
            let milliseconds = Int64(remaining / .milliseconds(1))
            self.poll(timeoutMilliseconds: Int32(clamping: max(1, milliseconds)), wake: nil)
        }
        return nil
    }

    /// Blocks until the connection's socket (or `wake`) is readable, or the timeout passes (-1: forever).
    ///
    /// - Returns: true when `wake` became readable.
    @discardableResult
    func poll(timeoutMilliseconds: Int32, wake: Int32?) -> Bool {
        var fds = [pollfd(fd: self.fileDescriptor, events: Int16(POLLIN), revents: 0)]
        if let wake { fds.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0)) }
        let result = Glibc.poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
        return result > 0 && fds.count > 1 && fds[1].revents != 0
    }

    /// A server timestamp, got by appending nothing to a property and reading the time of the `PropertyNotify`
    /// (ICCCM §2.1: owners must not use `CurrentTime` when taking a selection).
    func serverTime() -> XID {
        let property = self.atom("HUDDLE_TIMESTAMP")
        let atomType = self.atom("ATOM")
        _ = self.lib.changeProperty(self.display, self.window, property, atomType, 32, PropertyMode.append, nil, 0)
        self.flush()
        let deadline = ContinuousClock.now + .seconds(2)
        while let event = self.waitForEvent(type: XEvent.Kind.propertyNotify, window: self.window, deadline: deadline) {
            if event.propertyAtom == property { return event.propertyTime }
        }
        return 0  // CurrentTime, if the server never answered
    }

    /// Reads a whole property, deleting it when asked.
    ///
    /// Format-32 data arrives from Xlib as C longs (8 bytes each on LP64); they are narrowed back to 4-byte values,
    /// so the result is always the property's bytes as they are on the wire.
    func readProperty(_ property: XID, delete: Bool) -> (type: XID, format: Int32, data: Data)? {
        var actualType: XID = 0
        var format: Int32 = 0
        var count: UInt = 0
        var after: UInt = 0
        var pointer: UnsafeMutablePointer<UInt8>?
        // Long length in 4-byte units: ask for everything up to 1 GiB in one call.
        let status = self.lib.getWindowProperty(
            self.display,
            self.window,
            property,
            0,
            0x1000_0000,
            delete ? 1 : 0,
            0,
            &actualType,
            &format,
            &count,
            &after,
            &pointer
        )
        defer { if let pointer { _ = self.lib.free(pointer) } }
        guard status == 0, actualType != 0 else { return nil }
        guard let pointer else { return (actualType, format, Data()) }
        let data: Data
        switch format {
        case 32:
            let longs = UnsafeRawPointer(pointer).bindMemory(to: UInt.self, capacity: Int(count))
            var bytes = Data(capacity: Int(count) * 4)
            for index in 0..<Int(count) { bytes.appendNative(UInt32(truncatingIfNeeded: longs[index])) }
            data = bytes
        case 16:
            data = Data(bytes: pointer, count: Int(count) * 2)
        default:
            data = Data(bytes: pointer, count: Int(count))
        }
        return (actualType, format, data)
    }
}

/// `XChangeProperty` modes (X.h).
enum PropertyMode {
    static let replace: Int32 = 0
    static let append: Int32 = 2
}

extension Data {
    mutating func appendNative<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value) { self.append(contentsOf: $0) }
    }

    /// The 32-bit values in data read from a format-32 property.
    func uint32Values() -> [UInt32] {
        stride(from: 0, to: self.count - self.count % 4, by: 4).map { offset in
            self.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
        }
    }
}
#endif
