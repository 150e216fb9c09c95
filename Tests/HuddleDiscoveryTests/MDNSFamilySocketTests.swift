import HuddleDNS
import HuddleMDNSCore
import HuddleTestSupport
import NIOCore
import NIOPosix
import Testing

@testable import HuddleDiscovery

@Suite("The mDNS socket on loopback (real UDP)", .tags(.real), .timeLimit(.minutes(1)))
struct MDNSFamilySocketTests {
    @Test("two sockets share the port (SO_REUSEADDR + SO_REUSEPORT); each datagram arrives once, with packet info")
    func sharedPortAndPacketInfo() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let received = EventRecorder<(socket: Int, envelope: AddressedEnvelope<ByteBuffer>)>()
        // A free unprivileged port (no root, no real mDNS traffic, no other test run sharing it): the first socket
        // picks it, the second joins it.
        let first = try await MDNSFamilySocket.open(family: .v4, on: loop, port: 0) { envelope in
            received.record((1, envelope))
        }.get()
        let port = try #require(first.channel.localAddress?.port)
        let second = try await MDNSFamilySocket.open(family: .v4, on: loop, port: port) { envelope in
            received.record((2, envelope))
        }.get()
        let sockets = [first, second]
        let query = DNSMessage.query([DNSQuestion(name: "_lab._tcp.local", type: .ptr)]).encoded()
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        // The kernel spreads unicast over the sharing sockets by source port; use several senders.
        let senders = 8
        for _ in 0..<senders {
            let sender = try await DatagramBootstrap(group: loop).bind(host: "127.0.0.1", port: 0).get()
            try await sender.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: query))
            try await sender.close()
        }
        #expect(await received.count(atLeast: senders) { _ in true }, "\(received.events.count) datagrams arrived")
        for socket in sockets { try await socket.close().get() }
        let envelopes = received.events
        #expect(envelopes.count == senders, "each datagram reaches exactly one of the sharing sockets")
        let envelope = try #require(envelopes.first?.envelope)
        let info = try #require(envelope.metadata?.packetInfo)
        #expect(info.interfaceIndex > 0)
        #expect(info.destinationAddress.ipAddress == "127.0.0.1")
        #expect(!info.destinationAddress.isMDNSGroup)
        #expect(try DNSMessageDecoder().decode(envelope.data) == DNSMessageDecoder().decode(query))
    }
}
