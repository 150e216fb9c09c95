public import Huddle

/// `/peer HOST[:PORT]`, typed in `huddle chat` and `huddle peers`: look for a peer at that address from now on.
public enum PeerAddressInput {
    /// Adds `text`'s address to the session's direct addresses; returns what happened, in words.
    public static func add(_ text: String, to session: PeerSession) async -> String {
        do {
            let address = try PeerAddress(parsing: text)
            let new = try await session.addPeerAddress(address)
            return new ? "* looking for a peer at \(address)" : "* already looking at \(address)"
        } catch let error as PeerSessionError {
            return "! \(error.reason ?? "\(error)")"
        } catch {
            return "! \(error)"
        }
    }
}
