/// The systemd user unit that runs `huddle clip sync` with the graphical session (`huddle clip unit` prints it; the
/// README, "Clipboard sharing and sync between machines").
public enum ClipSyncUnit {
    /// The unit for `executable` (an absolute path), `extra` added to `clip sync`'s arguments (with its space).
    public static func text(executable: String, extra: String = "") -> String {
        """
        [Unit]
        Description=Huddle clipboard sync with paired machines
        Documentation=man:huddle(1)
        PartOf=graphical-session.target
        After=graphical-session.target

        [Service]
        ExecStart=\(executable) clip sync --quiet\(extra)
        Restart=on-failure
        RestartSec=5

        [Install]
        WantedBy=graphical-session.target

        """
    }
}
