public import Huddle
import HuddleTransport
import HuddleWire

/// How the commands word a direct address (`--peer`) that did not answer as a peer of the session.
public enum DirectAddressText {
    /// `10.1.2.3:47474: nothing answers there (…); trying again`.
    public static func unreachable(_ address: PeerAddress, _ error: PeerSessionError) -> String {
        "\(address): \(reason(error)); trying again"
    }

    /// What the failure means for someone who typed the address.
    public static func reason(_ error: PeerSessionError) -> String {
        guard let failure = error.connectionError else { return "\(error)" }
        switch failure {
        case .connectFailed(let detail):
            return socketFailure(detail)
        case .tls, .unacceptableCertificate:
            return "something that is not Huddle answers there (\(failure))"
        case .tlsHandshakeTimedOut, .wire(.handshakeTimedOut):
            return "it answered but did not finish the handshake in time"
        case .blocked(let device):
            return "the device there (\(device.shortID)) is blocked on this machine"
        case .wire(.sessionMismatch(_, let theirs)):
            return "Huddle answers there, but in session \(theirs), not this one"
        case .wire(.closedByPeer(.refused)):
            return "Huddle answers there but refused: another session, no common protocol version, "
                + "or this device blocked there"
        case .wire(.protocolMismatch(_, let theirs)):
            return "Huddle answers there, but speaks protocol versions \(theirs.lowerBound)–\(theirs.upperBound) only"
        default:
            return "\(failure)"
        }
    }

    /// A failed TCP connect in a few words, from the socket error's text.
    public static func socketFailure(_ detail: String) -> String {
        let lower = detail.lowercased()
        let known: [(String, String)] = [
            ("connection refused", "connection refused: nothing listens on that port (is Huddle running there?)"),
            ("no route to host", "no route to host (is the host up, and does a firewall reject the port?)"),
            ("network is unreachable", "network unreachable from here (no route to that address)"),
            ("timed out", "no answer within 5 s (is the host up, and does a firewall drop the port?)"),
            ("timeout", "no answer within 5 s (is the host up, and does a firewall drop the port?)"),
            ("cannot resolve", detail),
        ]
        return known.first { lower.contains($0.0) }?.1 ?? "nothing answers there (\(detail))"
    }
}
