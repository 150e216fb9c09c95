import HuddleDNS
import HuddleMDNSCore
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import HuddleDiscovery

@Suite("The mDNS socket on loopback (real UDP)")
struct MDNSFamilySocketTests {
    @Test("it shares its port with another socket (SO_REUSEADDR + SO_REUSEPORT) and reports the ingress interface")
    func sharedPortAndPacketInfo() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let received = NIOLockedValueBox<[AddressedEnvelope<ByteBuffer>]>([])
        // An unprivileged port, so the test needs no root and touches no real mDNS traffic.
        let port = 45_353
        let first = try await MDNSFamilySocket.open(family: .v4, on: loop, port: port) { envelope in
            received.withLockedValue { $0.append(envelope) }
        }.get()
        let second = try await MDNSFamilySocket.open(family: .v4, on: loop, port: port) { _ in }.get()
        let sender = try await DatagramBootstrap(group: loop).bind(host: "127.0.0.1", port: 0).get()
        let query = DNSMessage.query([DNSQuestion(name: "_lab._tcp.local", type: .ptr)]).encoded()
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        for _ in 0..<20 {
            try await sender.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: query))
        }
        // Unicast to a shared port goes to one of the sockets; poll (bounded) until some arrive at the first.
        for _ in 0..<100 where received.withLockedValue({ $0.isEmpty }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        let envelopes = received.withLockedValue { $0 }
        try await sender.close()
        try await first.close().get()
        try await second.close().get()
        let envelope = try #require(envelopes.first, "no datagram reached the first of two sockets sharing the port")
        let info = try #require(envelope.metadata?.packetInfo)
        #expect(info.interfaceIndex > 0)
        #expect(info.destinationAddress.ipAddress == "127.0.0.1")
        #expect(!info.destinationAddress.isMDNSGroup)
        #expect(try DNSMessageDecoder().decode(envelope.data) == DNSMessageDecoder().decode(query))
    }
}
