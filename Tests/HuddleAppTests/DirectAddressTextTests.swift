import Huddle
import HuddleApp
import HuddleTransport
import HuddleWire
import Testing

/// How the commands word a direct address that did not answer.
@Suite("Direct address failures in words")
struct DirectAddressTextTests {
    let address = PeerAddress(host: "10.1.2.3", port: 47474)

    @Test(arguments: [
        (
            "[IPv4]10.1.2.3:47474: connection reset (error set): Connection refused (errno: 111)",
            "connection refused: nothing listens on that port (is Huddle running there?)"
        ),
        (
            "[IPv4]10.1.2.3:47474: No route to host (errno: 113)",
            "no route to host (is the host up, and does a firewall reject the port?)"
        ),
        (
            "[IPv4]10.1.2.3:47474: connectTimeout(TimeAmount(nanoseconds: 5000000000))",
            "no answer within 5 s (is the host up, and does a firewall drop the port?)"
        ),
        ("10.1.2.3:47474: something new", "nothing answers there (10.1.2.3:47474: something new)"),
    ])
    func aFailedConnectIsSaidPlainly(_ detail: String, _ said: String) {
        let error = PeerSessionError.connection(.connectFailed(detail))
        #expect(DirectAddressText.unreachable(address, error) == "10.1.2.3:47474: \(said); trying again")
    }

    @Test func anotherSessionThereIsNamed() {
        let error = PeerSessionError.connection(
            .wire(.sessionMismatch(ours: "_typingtogether._tcp", theirs: "_other._tcp"))
        )
        #expect(DirectAddressText.reason(error) == "Huddle answers there, but in session _other._tcp, not this one")
    }

    @Test func somethingElseThanHuddleIsSaidSo() {
        let error = PeerSessionError.connection(.tls("handshake failed"))
        #expect(
            DirectAddressText.reason(error)
                == "something that is not Huddle answers there (TLS failed: handshake failed)"
        )
    }
}
