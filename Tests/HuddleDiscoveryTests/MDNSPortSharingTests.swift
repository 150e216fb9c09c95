import HuddleMDNSCore
import NIOCore
import NIOPosix
import Testing

@testable import HuddleDiscovery

@Suite("Who else holds the mDNS port (/proc/net/udp)")
struct MDNSPortSharingTests {
    @Test("rows are counted by the port of their local address, IPv4 and IPv6 alike; the header never")
    func tableRows() {
        let table = """
               sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref
             101: 00000000:14E9 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 4101 2
             102: 0100007F:14E9 00000000:0000 07 00000000:00000000 00:00000000 00000000   105        0 4102 2
             103: 00000000:14E8 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 4103 2
             104: 00000000000000000000000000000000:14E9 00000000000000000000000000000000:0000 07 0:0 0:0 0 0 0 4104 2
             105: 00000000:0035 000014E9:14E9 01 00000000:00000000 00:00000000 00000000     0        0 4105 2
            """
        #expect(MDNSPortSharing.socketsBound(to: 5353, inTable: table) == 3)
        #expect(MDNSPortSharing.socketsBound(to: 5352, inTable: table) == 1)
        #expect(MDNSPortSharing.socketsBound(to: 53, inTable: table) == 1)
        #expect(MDNSPortSharing.socketsBound(to: 5354, inTable: table) == 0)
    }

    @Test("a real socket is seen while bound and not after it is closed; the table is read to its end")
    func realSocket() async throws {
        // Without SO_REUSEPORT, so no other test's socket can be handed the same port.
        let socket = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "0.0.0.0", port: 0).get()
        let port = UInt16(try #require(socket.localAddress?.port))
        #expect(MDNSPortSharing.socketsBound(to: port) == 1)
        try await socket.close()
        // The table may list the socket a moment after its close completes.
        var after = MDNSPortSharing.socketsBound(to: port)
        for _ in 0..<100 where after != 0 {
            try await Task.sleep(for: .milliseconds(50))
            after = MDNSPortSharing.socketsBound(to: port)
        }
        #expect(after == 0)
    }
}
