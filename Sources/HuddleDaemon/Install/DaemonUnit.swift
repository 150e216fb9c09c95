import Foundation
import HuddleErrors
import HuddleTransport

/// The systemd user unit that runs `huddle daemon` (docs/daemon.md, "Running under systemd"): written by
/// `huddle daemon --install-unit` into the user's unit folder, shipped by the package in
/// `/usr/lib/systemd/user/`. The unit runs the daemon with no options: what it should do is `config.toml`'s.
public enum DaemonUnit {
    /// The unit's file name, so that `systemctl --user enable --now huddle.service` names it.
    public static let fileName = "huddle.service"

    /// The unit for `executable` (an absolute path: systemd runs no command by its name alone).
    public static func text(executable: String) -> String {
        """
        [Unit]
        Description=Huddle: reachable for paired devices, files received by the accept rules (huddle daemon)
        Documentation=man:huddle(1)
        After=network-online.target

        [Service]
        Type=exec
        ExecStart=\(executable) daemon
        Restart=on-failure
        RestartSec=5
        # 78: config.toml was refused. Starting again cannot help; the journal says which key or line.
        RestartPreventExitStatus=78

        [Install]
        WantedBy=default.target

        """
    }

    /// Where the user's own units live: `$XDG_CONFIG_HOME/systemd/user/`, else `~/.config/systemd/user/`
    /// (systemd.unit(5), "User Unit Search Path").
    public static func path(environment: [String: String]) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/systemd/user/" + fileName
        }
        let home =
            environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.config/systemd/user/" + fileName
    }

    /// Writes the unit for `executable` at `path` (its folder made when missing), replacing one written before
    /// in one step: a unit is never seen half-written.
    ///
    /// - Throws: ``DaemonError/Code/storage`` naming the path.
    public static func install(executable: String, at path: String) throws {
        guard executable.hasPrefix("/") else {
            throw DaemonError(.storage, "the unit must name huddle by its full path, not \(executable)")
        }
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try AtomicFile.write(Array(text(executable: executable).utf8), to: url, mode: 0o644)
        } catch {
            throw DaemonError(.storage, "could not write the unit \(path): \(error)")
        }
    }
}

extension DaemonUnit {
    /// What `huddle daemon --install-unit` does: the unit and "Send with Huddle" (``SendToHooks``) for
    /// `executable`, in the places `environment` names.
    /// - Returns: what to tell the user, line by line.
    /// - Throws: ``DaemonError/Code/storage`` naming what could not be written.
    public static func installAll(executable: String, environment: [String: String]) throws -> [String] {
        let path = path(environment: environment)
        let thunar = try? String(contentsOfFile: SendToHooks.thunarPath(environment: environment), encoding: .utf8)
        try install(executable: executable, at: path)
        let hooks = SendToHooks.files(executable: executable, environment: environment, thunar: thunar)
        let written = try SendToHooks.install(hooks)
        return [
            "wrote \(path); start it now and at every login with:",
            "  systemctl --user daemon-reload && systemctl --user enable --now \(fileName)",
            "  journalctl --user -u huddle -f    (what it says)",
            "and \"Send with Huddle\" for the file managers: " + written.joined(separator: ", "),
        ]
    }
}
