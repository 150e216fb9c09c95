import ArgumentParser
import Foundation
import Huddle
import HuddleTransport
import HuddleWire

/// `--data-dir` for the commands that only touch the identity and the trust store.
struct DataDirectoryOption: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp("Where the device key and trust store live.", valueName: "dir")
    )
    var dataDirectory: String?

    var url: URL {
        dataDirectory.map { URL(fileURLWithPath: $0) } ?? PeerSessionConfiguration.defaultDataDirectory()
    }
}
