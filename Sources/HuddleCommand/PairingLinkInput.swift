import Foundation
import Huddle

/// Where `huddle pair` takes a link from: standard input for `-` (so that the secret is not in the process list
/// or the shell's history), else the argument itself, with a word that other local users can read it there.
enum PairingLinkInput {
    static let standardInput = "-"

    /// The link `argument` names: read from standard input (its first line that is not blank) for `-`.
    static func read(
        _ argument: String,
        standardInput: () -> String? = { Swift.readLine(strippingNewline: true) }
    )
        throws -> PairingLink
    {
        guard argument == Self.standardInput else {
            Output.error(
                "note: other users of this machine can read a link given as an argument in the process list; "
                    + "huddle pair - reads it from standard input"
            )
            return try PairingLink(parsing: argument)
        }
        while let line = standardInput() {
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty { return try PairingLink(parsing: text) }
        }
        throw PeerSessionError.invalidConfiguration("no pairing link on standard input")
    }
}
