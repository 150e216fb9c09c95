import Foundation

/// What a line typed in a chat (`huddle chat`, the daemon's chat) asks for.
public enum ChatInput: Equatable, Sendable {
    /// A blank line: nothing to do.
    case nothing
    /// `/quit`: leave.
    case quit
    /// `/peers`: list the peers and their states.
    case listPeers
    /// `/connect NAME`: dial the available peer of that name.
    case connect(String)
    /// `/peer HOST[:PORT]`: also look for a peer at that address.
    case lookAt(String)
    /// `/lobby KEY=VALUE` (or `KEY=` to remove it): change what the session advertises beside its name.
    case setLobby(String)
    /// Anything else: a line to say to everyone connected, as typed.
    case say(String)

    public init(_ line: String) {
        let text = line.trimmingCharacters(in: .whitespaces)
        if text.isEmpty {
            self = .nothing
        } else if text == "/quit" {
            self = .quit
        } else if text == "/peers" {
            self = .listPeers
        } else if let name = Self.argument(of: "/connect ", in: text) {
            self = .connect(name)
        } else if let address = Self.argument(of: "/peer ", in: text) {
            self = .lookAt(address)
        } else if let entry = Self.argument(of: "/lobby ", in: text) {
            self = .setLobby(entry)
        } else {
            self = .say(line)
        }
    }

    /// The trimmed rest of `text` after `command`, when `text` starts with it.
    static func argument(of command: String, in text: String) -> String? {
        guard text.hasPrefix(command) else { return nil }
        return String(text.dropFirst(command.count)).trimmingCharacters(in: .whitespaces)
    }
}
