import Testing

@testable import Huddle

/// The forms of `--peer` users type.
@Suite("Peer addresses as typed")
struct PeerAddressTests {
    @Test(arguments: [
        ("10.1.2.3", "10.1.2.3", PeerAddress.defaultPort, "10.1.2.3:47474"),
        ("10.1.2.3:5000", "10.1.2.3", 5000, "10.1.2.3:5000"),
        ("bob.example.internal:80", "bob.example.internal", 80, "bob.example.internal:80"),
        ("laptop", "laptop", PeerAddress.defaultPort, "laptop:47474"),
        ("[fd00::7]:6000", "fd00::7", 6000, "[fd00::7]:6000"),
        ("[fe80::1%eth0]", "fe80::1%eth0", PeerAddress.defaultPort, "[fe80::1%eth0]:47474"),
        ("fe80::1%eth0", "fe80::1%eth0", PeerAddress.defaultPort, "[fe80::1%eth0]:47474"),
    ])
    func readsEachForm(_ text: String, host: String, port: Int, shown: String) throws {
        let address = try PeerAddress(parsing: text)
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.description == shown)
    }

    @Test(arguments: [
        ("", "no host"),
        (":5000", "no host"),
        ("10.1.2.3:0", "the port must be 1 to 65535"),
        ("10.1.2.3:70000", "the port must be 1 to 65535"),
        ("10.1.2.3:http", "the port must be 1 to 65535"),
        ("[fd00::7", "no ] after the IPv6 address"),
        ("[fd00::7]5000", "only :PORT may follow ]"),
        ("bob smith", "the host has characters no host name or address has"),
    ])
    func refusesWhatIsNoAddressAndSaysWhy(_ text: String, why: String) {
        #expect(
            throws: PeerSessionError.invalidConfiguration(
                "\"\(text)\" is not a peer address: \(why) (HOST, HOST:PORT or [IPv6]:PORT)"
            )
        ) {
            try PeerAddress(parsing: text)
        }
    }
}
