import ArgumentParser
import Foundation
import Huddle
import HuddleTransport
import HuddleWire

/// `--data-dir`, declared once: for the session commands (``SessionOptions``) and for those that only touch the
/// identity and the trust store.
struct DataDirectoryOption: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Where the device key and trust store live (default: $HUDDLE_HOME, else $XDG_DATA_HOME/huddle, else "
                + "$HOME/.local/share/huddle).",
            valueName: "dir"
        )
    )
    var dataDirectory: String?

    var url: URL {
        dataDirectory.map { URL(fileURLWithPath: $0) } ?? PeerSessionConfiguration.defaultDataDirectory()
    }
}
