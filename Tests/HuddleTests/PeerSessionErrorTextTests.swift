import Huddle
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
