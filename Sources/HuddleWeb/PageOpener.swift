public import Foundation

/// Opens the page in the desktop's browser: `xdg-open` (freedesktop.org's xdg-utils), or `$BROWSER` when set.
public enum PageOpener {
    /// Starts the browser on `url`; the reason in words when it could not be started or said no.
    public static func open(
        _ url: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> String?
    {
        let program = environment["BROWSER"].flatMap { $0.isEmpty ? nil : $0 } ?? "xdg-open"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program, url]
        do {
            try process.run()
        } catch {
            return "could not start \(program) (\(error)): open the address above in a browser"
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return "\(program) exited with \(process.terminationStatus): open the address above in a browser"
        }
        return nil
    }
}
