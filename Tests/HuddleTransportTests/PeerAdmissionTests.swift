import HuddleTransport
import HuddleWire
import NIOCore
import NIOPosix
import Synchronization
import Testing

@Suite("Admission of unauthenticated connections")
struct PeerAdmissionTests {
    @Test func limitsPerAddressAndInTotal() throws {
        let admission = PeerAdmission(maximumTotal: 6, maximumPerAddress: 4)
        let one = try SocketAddress(ipAddress: "10.0.0.1", port: 1)
        let two = try SocketAddress(ipAddress: "10.0.0.2", port: 1)
        var tickets = (0..<4).compactMap { _ in admission.admit(one) }
        #expect(tickets.count == 4)
        #expect(admission.admit(one) == nil)
        tickets += (0..<4).compactMap { _ in admission.admit(two) }
        #expect(tickets.count == 6)
        #expect(admission.pending == 6)
        tickets[0].release()
        tickets[0].release()
        #expect(admission.pending == 5)
        #expect(admission.admit(one) != nil)  // released at once: the ticket is dropped here
        #expect(admission.pending == 5)
        tickets.removeAll()
        #expect(admission.pending == 0)
    }

    @Test func slowConnectionsFillOnlyTheirAddressShareAndAPeerStillPairs() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let bob = try TransportPeer("bob")
        let ada = try TransportPeer("ada")
        let configuration = {
            var configuration = PeerConnectionConfiguration()
            // Long enough that the held ones are still held when counted, even on a busy machine.
            configuration.tlsHandshakeTimeout = .seconds(30)
            return configuration
        }()
        let admission = PeerAdmission(maximumTotal: 16, maximumPerAddress: 4)
        let serverLog = EventLog()
        let accepted = Mutex<(any Channel)?>(nil)
        let listener = try await PeerChannels.listen(
            host: "127.0.0.1",
            port: 0,
            group: group,
            tls: bob.tls,
            admission: admission
        ) { channel in
            accepted.withLock { $0 = channel }
            return (bob.setup(.responder, configuration: configuration), bob.verifier(), serverLog.sink)
        }
        // Ten silent connections from 127.0.0.2: four are held (until the TLS deadline), six are closed at once.
        var silent: [any Channel] = []
        for _ in 0..<10 {
            silent.append(
                try await ClientBootstrap(group: group).bind(to: try SocketAddress(ipAddress: "127.0.0.2", port: 0))
                    .connect(to: listener.localAddress!).get()
            )
        }
        // The six refused ones are closed by the listener at once; on a busy machine their close can take seconds
        // to reach this side (a CI run's parallel tests once held one for more than 5 s).
        let settled = ContinuousClock.now + .seconds(15)
        while silent.count(where: \.isActive) > 4 && ContinuousClock.now < settled {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(silent.count { $0.isActive } == 4)
        #expect(admission.pending == 4)
        // A peer from another address pairs meanwhile.
        let clientLog = EventLog()
        let client = try await PeerChannels.dial(
            listener.localAddress!,
            group: group,
            tls: ada.tls,
            wiring: (ada.setup(.initiator, configuration: configuration), ada.verifier(), clientLog.sink)
        )
        _ = try #require(await serverLog.wait(for: PeerConnectionTests.prompt))
        #expect(admission.pending <= 4)  // the prompt released the peer's place
        try await accepted.withLock { $0 }!.writeAndFlush(PeerOutbound.decision(accept: true))
        try await client.writeAndFlush(PeerOutbound.decision(accept: true))
        _ = try #require(await clientLog.wait(for: PeerConnectionTests.connected))
        // The held ones hit the TLS deadline and leave room again.
        let deadline = ContinuousClock.now + .seconds(60)
        while silent.contains(where: \.isActive) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(silent.allSatisfy { !$0.isActive })
        #expect(admission.pending == 0)
        try? await client.close()
        try? await listener.close()
    }
}
