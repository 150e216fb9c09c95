import Huddle
import HuddleErrors
import HuddleTransport
import HuddleWire
import Testing

/// Reasons in these errors come from the peer: their descriptions show terminal controls as escapes.
@Suite("Peer session error text")
struct PeerSessionErrorTextTests {
    @Test(arguments: [
        (
            PeerSessionError.transferDeclined("no\u{1B}[2J\u{1B}]52;c;aGk=\u{07}"),
            "the file was declined (no\\e[2J\\e]52;c;aGk=\\a)"
        ),
        (.transferFailed("bad\u{9B}31m\u{0D}"), "the transfer failed: bad\\u{9B}31m\\r"),
        (.transferDeclined("go\u{202E}away\u{0A}"), "the file was declined (go\\u{202E}away\\n)"),
    ])
    func peerSuppliedReasonsAreShownEscaped(error: PeerSessionError, shown: String) {
        #expect(error.description == shown)
    }
}

/// Errors are structs with a code to branch on and accessors for what they carry.
@Suite("Peer session error codes")
struct PeerSessionErrorCodeTests {
    let bob = PeerID(rawValue: "bob")

    @Test func theCodeAndWhatTheErrorCarriesAreReadable() {
        let refused = PeerSessionError.connection(.wire(.pairingRejected(reason: .denied)))
        #expect(refused.code == .connection)
        #expect(refused.wireError == .pairingRejected(reason: .denied))
        #expect(refused.connectionError == .wire(.pairingRejected(reason: .denied)))
        #expect(refused.peer == nil && refused.reason == nil)
        let lost = PeerSessionError.notConnected(bob)
        #expect(lost.code == .notConnected && lost.peer == bob)
        #expect(PeerSessionError.transferDeclined("full").reason == "full")
        #expect(PeerSessionError.autoConnectFailed(lost).underlying == lost)
        #expect(PeerSessionError.messageTooLarge(limit: 10, size: 11).limit?.size == 11)
        #expect(PeerSessionError.tooManyTransfers(limit: 4).limit?.limit == 4)
        #expect(lost != .notConnected(PeerID(rawValue: "cy")))
    }

    @Test func catchAndCasePatternsMatchByValue() {
        func kind(_ error: any Error) -> String {
            switch error {
            case PeerSessionError.stopped: "stopped"
            case PeerSessionError.cancelled: "cancelled"
            case let error as PeerSessionError where error.code == .transferFailed: "failed: \(error.reason ?? "")"
            default: "other"
            }
        }
        #expect(kind(PeerSessionError.stopped) == "stopped")
        #expect(kind(PeerSessionError.cancelled) == "cancelled")
        #expect(kind(PeerSessionError.transferFailed("x")) == "failed: x")
        #expect(kind(PeerSessionError.notConnected(bob)) == "other")
        #expect(PeerSessionError.Code.transferFailed.description == "transferFailed")
    }
}
