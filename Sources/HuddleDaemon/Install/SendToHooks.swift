import Foundation
import HuddleErrors
import HuddleTransport

/// "Send with Huddle" where people pick files (docs/daemon.md, "Send to"): a desktop entry, a Nautilus script, a
/// Dolphin service menu and a Thunar custom action. Each runs `huddle ui FILE…`, which hands the files to the
/// running daemon and opens its page with them, where the device is picked.
public enum SendToHooks {
    /// One file a hook is: where it goes (under the XDG folders) and what it holds.
    public struct File: Sendable, Equatable {
        public var path: String
        public var text: String
        public var mode: Int
    }

    /// The files for `executable` (absolute) in the folders of `environment` (`XDG_DATA_HOME`,
    /// `XDG_CONFIG_HOME`, `HOME`); `thunar` is the user's `uca.xml` as it is now (nil: none yet), which keeps its
    /// actions.
    public static func files(executable: String, environment: [String: String], thunar: String?) -> [File] {
        let data = folder("XDG_DATA_HOME", else: "/.local/share", environment)
        let exec = DesktopEntryText.quoted(executable)
        return [
            File(path: data + "/applications/huddle-send.desktop", text: desktopEntry(exec), mode: 0o644),
            File(path: data + "/nautilus/scripts/Send with Huddle", text: nautilusScript(executable), mode: 0o755),
            File(path: data + "/kio/servicemenus/huddle-send.desktop", text: dolphinMenu(exec), mode: 0o755),
            File(
                path: thunarPath(environment: environment),
                text: ThunarActions.merged(thunar, executable: executable),
                mode: 0o644
            ),
        ]
    }

    /// Thunar's custom actions file: `$XDG_CONFIG_HOME/Thunar/uca.xml`.
    public static func thunarPath(environment: [String: String]) -> String {
        folder("XDG_CONFIG_HOME", else: "/.config", environment) + "/Thunar/uca.xml"
    }

    /// An XDG base directory (XDG Base Directory Specification): the variable when it is an absolute path, else
    /// its default under `HOME`.
    static func folder(_ variable: String, else fallback: String, _ environment: [String: String]) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        return home + fallback
    }

    /// A desktop entry (Desktop Entry Specification 1.5): in the menus, and "Open With" for any file.
    static func desktopEntry(_ exec: String) -> String {
        """
        [Desktop Entry]
        Type=Application
        Name=Send with Huddle
        Comment=Send files to a device nearby, picked on Huddle's page
        Exec=\(exec) ui %F
        Icon=document-send
        Terminal=false
        Categories=Network;FileTransfer;
        MimeType=application/octet-stream;inode/directory;

        """
    }

    /// A script in Nautilus's Scripts menu: Nautilus runs it with the selected local files as its arguments.
    static func nautilusScript(_ executable: String) -> String {
        """
        #!/bin/sh
        # Send with Huddle: written by huddle daemon --install-unit. Nautilus passes the selected files.
        exec \(ShellText.quoted(executable)) ui -- "$@"

        """
    }

    /// A Dolphin (KIO) service menu: an action in the context menu of every file and folder.
    static func dolphinMenu(_ exec: String) -> String {
        """
        [Desktop Entry]
        Type=Service
        MimeType=application/octet-stream;inode/directory;
        Actions=huddleSend
        X-KDE-Priority=TopLevel

        [Desktop Action huddleSend]
        Name=Send with Huddle
        Icon=document-send
        Exec=\(exec) ui %F

        """
    }

    /// Writes every file (its folder made when missing), each in one step; returns their paths.
    ///
    /// - Throws: ``DaemonError/Code/storage`` naming the path that could not be written.
    public static func install(_ files: [File]) throws -> [String] {
        for file in files {
            let url = URL(fileURLWithPath: file.path)
            do {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(),
                    withIntermediateDirectories: true
                )
                try AtomicFile.write(Array(file.text.utf8), to: url, mode: mode_t(file.mode))
            } catch {
                throw DaemonError(.storage, "could not write \(file.path): \(error)")
            }
        }
        return files.map(\.path)
    }
}

/// Quoting for an `Exec` key (Desktop Entry Specification, "The Exec key"): an argument with a reserved character
/// in double quotes, with `"`, `` ` ``, `$` and `\` escaped by a backslash.
enum DesktopEntryText {
    static func quoted(_ argument: String) -> String {
        let reserved = Set(" \t\n\"'\\><~|&;$*?#()`")
        guard argument.contains(where: { reserved.contains($0) }) else { return argument }
        var out = "\""
        for character in argument {
            if "\"`$\\".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out + "\""
    }
}

/// Quoting for a POSIX shell: in single quotes, a single quote as `'\''`.
enum ShellText {
    static func quoted(_ argument: String) -> String {
        "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
