import ArgumentParser
import Foundation
import HuddleDaemon

struct ClipUnitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unit",
        abstract: "Print a systemd user unit that runs `huddle clip sync` in the background.",
        discussion: """
            Pair the machines once in a terminal (`huddle clip sync`, compare the code), then install the unit:

              huddle clip unit > ~/.config/systemd/user/huddle-clip-sync.service
              systemctl --user daemon-reload
              systemctl --user enable --now huddle-clip-sync.service
              journalctl --user -u huddle-clip-sync -f

            The service starts with the graphical session (it needs DISPLAY or WAYLAND_DISPLAY, which the \
            session exports to the user manager), logs one line per refusal or problem (--quiet), and restarts \
            if it fails. First contacts are refused there (no terminal to compare a code): pair in a terminal.
            """
    )

    @Option(help: "Extra arguments for clip sync, e.g. \"--types text --max-size 4M\".") var arguments = ""
    @OptionGroup var executable: ExecutableOption

    func run() throws {
        let extra = arguments.isEmpty ? "" : " " + arguments
        print(ClipSyncUnit.text(executable: executable.path, extra: extra), terminator: "")
    }
}
