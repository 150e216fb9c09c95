public import Foundation

/// Picks the general pasteboard backend for this machine.
public enum SystemPasteboard {
    /// The backend the environment calls for.
    ///
    /// - On macOS: `NSPasteboard`.
    /// - With `WAYLAND_DISPLAY` set and wl-clipboard installed: Wayland through `wl-copy` / `wl-paste`.
    /// - With `DISPLAY` set: X11 directly (libX11 and libXfixes loaded at run time). Under XWayland this is the
    ///   fallback when wl-clipboard is missing; the compositor bridges the two clipboards.
    ///
    /// - Throws: ``PasteboardError`` `.noBackend` saying what is missing: neither variable set, libX11 not
    ///   loadable, wl-clipboard not installed.
    public static func make(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws
        -> any GeneralPasteboard
    {
        #if canImport(AppKit)
        return AppKitPasteboard()
        #else
        var problems: [String] = []
        if let wayland = environment["WAYLAND_DISPLAY"], !wayland.isEmpty {
            do {
                return try WaylandPasteboard(environment: environment)
            } catch let error as PasteboardError {
                problems.append(error.message)
            }
        }
        if let display = environment["DISPLAY"], !display.isEmpty {
            #if os(Linux) || os(FreeBSD) || os(OpenBSD)
            do {
                return try X11Pasteboard(displayName: display)
            } catch let error as PasteboardError {
                problems.append(error.message)
            }
            #endif
        }
        if problems.isEmpty {
            throw PasteboardError(
                .noBackend,
                "no clipboard to use: neither DISPLAY (X11) nor WAYLAND_DISPLAY (Wayland) is set; "
                    + "run inside a graphical session, or use a named pasteboard (--name)"
            )
        }
        throw PasteboardError(.noBackend, "no usable clipboard: " + problems.joined(separator: "; "))
        #endif
    }
}
