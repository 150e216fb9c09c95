import Foundation
import Huddle

/// `/peer HOST[:PORT]`, typed in `huddle chat` and `huddle peers`: look for a peer at that address from now on.
enum PeerAddressCommand {
    static let prefix = "/peer "

    /// Carries out `line` when it is a `/peer` command, saying what happened; false when it is not one.
    static func handle(_ line: String, session: PeerSession) async -> Bool {
        guard line.hasPrefix(prefix) else { return false }
        let text = String(line.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
        do {
            let address = try PeerAddress(parsing: text)
            let new = try await session.addPeerAddress(address)
            Output.line(new ? "* looking for a peer at \(address)" : "* already looking at \(address)")
        } catch let error as PeerSessionError {
            Output.line("! \(error.reason ?? "\(error)")")
        } catch {
            Output.line("! \(error)")
        }
        return true
    }
}
