public import Foundation

/// Registers a program as the handler of `huddle:` URLs on a freedesktop.org desktop.
///
/// Writes a desktop entry (Desktop Entry Specification 1.5) with `MimeType=x-scheme-handler/huddle;` under
/// `$XDG_DATA_HOME/applications`, then, when the tools are installed, runs `update-desktop-database` on that
/// directory and `xdg-mime default huddle-url-handler.desktop x-scheme-handler/huddle` so `xdg-open huddle:…`
/// runs it.
public enum URLSchemeRegistration {
    public static let desktopFileName = "huddle-url-handler.desktop"

    /// What ``register(executable:environment:)`` did.
    public struct Result: Sendable {
        /// The desktop entry written.
        public var desktopFile: URL
        /// The helper commands that ran (`xdg-mime …`), and those skipped because they are not installed.
        public var ran: [String]
        public var skipped: [String]
    }

    /// The desktop entry's text for `executable` (`%u` is where the desktop puts the URL).
    public static func desktopEntry(executable: String) -> String {
        """
        [Desktop Entry]
        Type=Application
        Name=Huddle
        Comment=Open huddle: links (clipboard hand-off between programs)
        Exec=\(Self.quotedExec(executable)) url open %u
        NoDisplay=true
        Terminal=false
        MimeType=x-scheme-handler/huddle;

        """
    }

    /// Writes the desktop entry and tells the desktop about it.
    public static func register(
        executable: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Result {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "\(home)/.local/share"
        let directory = URL(fileURLWithPath: dataHome).appendingPathComponent("applications")
        let file = directory.appendingPathComponent(Self.desktopFileName)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(Self.desktopEntry(executable: executable).utf8).write(to: file, options: .atomic)
        } catch {
            throw PasteboardError(.storage, "cannot write \(file.path): \(error.localizedDescription)")
        }
        var result = Result(desktopFile: file, ran: [], skipped: [])
        let commands: [(String, String, [String])] = [
            ("update-desktop-database", "desktop-file-utils", [directory.path]),
            ("xdg-mime", "xdg-utils", ["default", Self.desktopFileName, "x-scheme-handler/huddle"]),
        ]
        for (name, package, arguments) in commands {
            let line = ([name] + arguments).joined(separator: " ")
            guard let helper = try? HelperProgram(name, package: package, environment: environment) else {
                result.skipped.append(line)
                continue
            }
            let outcome = try helper.run(arguments)
            guard outcome.status == 0 else {
                throw PasteboardError(.storage, "\(line) failed: \(outcome.error)")
            }
            result.ran.append(line)
        }
        return result
    }

    /// Quotes a path for `Exec=` when it has characters the spec reserves (§"The Exec key").
    static func quotedExec(_ path: String) -> String {
        let reserved = CharacterSet(charactersIn: " \t\n\"'\\><~|&;$*?#()`")
        guard path.unicodeScalars.contains(where: reserved.contains) else { return path }
        let escaped = path.replacingOccurrences(of: "\\", with: "\\\\\\\\").replacingOccurrences(
            of: "\"",
            with: "\\\\\""
        )
        .replacingOccurrences(of: "`", with: "\\\\`").replacingOccurrences(of: "$", with: "\\\\$")
        return "\"\(escaped)\""
    }
}
