#if os(Linux) || os(FreeBSD) || os(OpenBSD)
import Glibc

/// X11 resource ids: `Window`, `Atom` and `Time` are all C `unsigned long` in Xlib (Xlib manual §1.3).
typealias XID = UInt

/// The Xlib and XFixes functions Huddle calls, looked up with `dlopen`/`dlsym` at run time.
///
/// Loading at run time keeps the build free of X headers and libraries (CI machines have only the Swift toolchain)
/// and lets a machine without X still run every other part of Huddle: the error names the library that is missing.
/// Signatures follow the Xlib C Language Interface (X11R7) and the XFixes protocol's client library, with C `int`
/// as `Int32`, `long`/`unsigned long` as `Int`/`UInt` (LP64) and `Display *` as an opaque pointer.
final class XlibLibrary: Sendable {
    typealias Display = OpaquePointer
    typealias ErrorHandler = @convention(c) (Display?, UnsafeMutableRawPointer?) -> Int32
    typealias IOErrorExitHandler = @convention(c) (Display?, UnsafeMutableRawPointer?) -> Void

    let openDisplay: @convention(c) (UnsafePointer<CChar>?) -> Display?
    let closeDisplay: @convention(c) (Display) -> Int32
    let connectionNumber: @convention(c) (Display) -> Int32
    let defaultRootWindow: @convention(c) (Display) -> XID
    let createSimpleWindow: @convention(c) (Display, XID, Int32, Int32, UInt32, UInt32, UInt32, UInt, UInt) -> XID
    let destroyWindow: @convention(c) (Display, XID) -> Int32
    let internAtom: @convention(c) (Display, UnsafePointer<CChar>, Int32) -> XID
    let getAtomName: @convention(c) (Display, XID) -> UnsafeMutablePointer<CChar>?
    let free: @convention(c) (UnsafeMutableRawPointer?) -> Int32
    let setSelectionOwner: @convention(c) (Display, XID, XID, XID) -> Int32
    let getSelectionOwner: @convention(c) (Display, XID) -> XID
    let convertSelection: @convention(c) (Display, XID, XID, XID, XID, XID) -> Int32
    let sendEvent: @convention(c) (Display, XID, Int32, Int, UnsafeMutableRawPointer) -> Int32
    let changeProperty: @convention(c) (Display, XID, XID, XID, Int32, Int32, UnsafeRawPointer?, Int32) -> Int32
    let getWindowProperty:
        @convention(c) (
            Display, XID, XID, Int, Int, Int32, XID,
            UnsafeMutablePointer<XID>, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<UInt>,
            UnsafeMutablePointer<UInt>, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
        ) -> Int32
    let deleteProperty: @convention(c) (Display, XID, XID) -> Int32
    let selectInput: @convention(c) (Display, XID, Int) -> Int32
    let nextEvent: @convention(c) (Display, UnsafeMutableRawPointer) -> Int32
    let pending: @convention(c) (Display) -> Int32
    let checkTypedWindowEvent: @convention(c) (Display, XID, Int32, UnsafeMutableRawPointer) -> Int32
    let flush: @convention(c) (Display) -> Int32
    let sync: @convention(c) (Display, Int32) -> Int32
    let maxRequestSize: @convention(c) (Display) -> Int
    let extendedMaxRequestSize: @convention(c) (Display) -> Int
    let setErrorHandler: @convention(c) (ErrorHandler?) -> ErrorHandler?
    /// `XSetIOErrorExitHandler` (libX11 1.7, 2020): lets a lost connection end our loops instead of the process.
    let setIOErrorExitHandler: (@convention(c) (Display, IOErrorExitHandler?, UnsafeMutableRawPointer?) -> Void)?
    let fixesQueryExtension: @convention(c) (Display, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>) -> Int32
    let fixesSelectSelectionInput: @convention(c) (Display, XID, XID, UInt) -> Void

    /// The library, loaded once per process; the error says which shared object or symbol is missing.
    static let shared: Result<XlibLibrary, PasteboardError> = Result { try XlibLibrary() }.mapError {
        $0 as? PasteboardError ?? PasteboardError(.libraryMissing, "\($0)")
    }

    private init() throws {
        let x11 = try Self.open(["libX11.so.6", "libX11.so"], package: "libx11-6")
        let fixes = try Self.open(["libXfixes.so.3", "libXfixes.so"], package: "libxfixes3")
        func symbol<T>(_ handle: UnsafeMutableRawPointer, _ name: String, _: T.Type = T.self) throws -> T {
            guard let pointer = dlsym(handle, name) else {
                throw PasteboardError(.libraryMissing, "the X11 library has no \(name): it is too old or not Xlib")
            }
            return unsafeBitCast(pointer, to: T.self)
        }
        // Owners, watchers and readers run on threads of their own, each with its own connection; Xlib's global
        // state (error handlers, the display list) needs its locks for that, switched on before any other call.
        let initThreads: @convention(c) () -> Int32 = try symbol(x11, "XInitThreads")
        _ = initThreads()
        self.openDisplay = try symbol(x11, "XOpenDisplay")
        self.closeDisplay = try symbol(x11, "XCloseDisplay")
        self.connectionNumber = try symbol(x11, "XConnectionNumber")
        self.defaultRootWindow = try symbol(x11, "XDefaultRootWindow")
        self.createSimpleWindow = try symbol(x11, "XCreateSimpleWindow")
        self.destroyWindow = try symbol(x11, "XDestroyWindow")
        self.internAtom = try symbol(x11, "XInternAtom")
        self.getAtomName = try symbol(x11, "XGetAtomName")
        self.free = try symbol(x11, "XFree")
        self.setSelectionOwner = try symbol(x11, "XSetSelectionOwner")
        self.getSelectionOwner = try symbol(x11, "XGetSelectionOwner")
        self.convertSelection = try symbol(x11, "XConvertSelection")
        self.sendEvent = try symbol(x11, "XSendEvent")
        self.changeProperty = try symbol(x11, "XChangeProperty")
        self.getWindowProperty = try symbol(x11, "XGetWindowProperty")
        self.deleteProperty = try symbol(x11, "XDeleteProperty")
        self.selectInput = try symbol(x11, "XSelectInput")
        self.nextEvent = try symbol(x11, "XNextEvent")
        self.pending = try symbol(x11, "XPending")
        self.checkTypedWindowEvent = try symbol(x11, "XCheckTypedWindowEvent")
        self.flush = try symbol(x11, "XFlush")
        self.sync = try symbol(x11, "XSync")
        self.maxRequestSize = try symbol(x11, "XMaxRequestSize")
        self.extendedMaxRequestSize = try symbol(x11, "XExtendedMaxRequestSize")
        self.setErrorHandler = try symbol(x11, "XSetErrorHandler")
        self.setIOErrorExitHandler = dlsym(x11, "XSetIOErrorExitHandler").map {
            unsafeBitCast(
                $0,
                to: (@convention(c) (Display, IOErrorExitHandler?, UnsafeMutableRawPointer?) -> Void).self
            )
        }
        self.fixesQueryExtension = try symbol(fixes, "XFixesQueryExtension")
        self.fixesSelectSelectionInput = try symbol(fixes, "XFixesSelectSelectionInput")
        // Xlib's default error handler exits the process. Protocol errors are expected here (a requestor window
        // destroyed mid-transfer gives BadWindow, ICCCM §2.2), so they are ignored and the transfer times out.
        _ = self.setErrorHandler { _, _ in 0 }
        // Xlib's default I/O error handler prints and exits. This one returns, so the per-connection exit handler
        // (``X11Connection``) runs instead and marks the connection broken.
        let setIOErrorHandler: @convention(c) ((@convention(c) (Display?) -> Int32)?) -> OpaquePointer? =
            try symbol(x11, "XSetIOErrorHandler")
        _ = setIOErrorHandler { _ in 0 }
    }

    private static func open(_ names: [String], package: String) throws -> UnsafeMutableRawPointer {
        for name in names {
            if let handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL) { return handle }
        }
        throw PasteboardError(
            .libraryMissing,
            "\(names[0]) could not be loaded (install \(package), e.g. apt-get install \(package))"
        )
    }
}
#endif
