import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import NIOPosix
import Testing

/// The deadlines of `PeerChannels.dial` and of the TLS handshake on both ends, on loopback.
@Suite("Dial and handshake deadlines on loopback", .tags(.real), .timeLimit(.minutes(2)))
struct DialTimeoutTests {
    let group = MultiThreadedEventLoopGroup.singleton

    /// A listener that never accepts, its queue filled: the kernel drops further SYNs, so a connect hangs. Fills
    /// it until a connect times out.
    func fullListener() async throws -> (listener: any Channel, fillers: [any Channel]) {
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1)
            .serverChannelOption(.autoRead, value: false)
            .bind(host: "127.0.0.1", port: 0)
            .get()
        var fillers: [any Channel] = []
        for _ in 0..<8 {
            do {
                fillers.append(
                    try await ClientBootstrap(group: group)
                        // Long enough that a connection the queue takes is never given up on a loaded machine.
                        .connectTimeout(.seconds(1))
                        .connect(to: listener.localAddress!)
                        .get()
                )
            } catch {
                break
            }
        }
        return (listener, fillers)
    }

    @Test func connectTimeoutBelowASecondIsHonoured() async throws {
        let (listener, fillers) = try await fullListener()
        #expect(fillers.count < 8, "the accept queue should fill up")
        let ada = try TransportPeer("ada")
        var configuration = PeerConnectionConfiguration()
        configuration.connectTimeout = .milliseconds(400)
        let log = EventLog()
        let start = ContinuousClock.now
        await #expect {
            _ = try await PeerChannels.dial(
                listener.localAddress!,
                group: group,
                tls: ada.tls,
                wiring: (ada.setup(.initiator, configuration: configuration), ada.verifier(), log.sink)
            )
        } throws: { error in
            guard case PeerConnectionError.connectFailed(let detail) = error else { return false }
            return detail.contains("Connect timeout")
        }
        // Not before the deadline; how long after it depends on the machine's load, and the error above proves that
        // this deadline (not another) ended the dial.
        #expect(start.duration(to: .now) >= .milliseconds(400))
        for filler in fillers { try? await filler.close() }
        try? await listener.close()
    }

    @Test func connectTimeoutBelowASecondStillConnects() async throws {
        let bob = try TransportPeer("bob")
        let listener = try await LoggedListener.start(bob)
        let ada = try TransportPeer("ada")
        var configuration = PeerConnectionConfiguration()
        configuration.connectTimeout = .milliseconds(900)
        let log = EventLog()
        for _ in 0..<20 {
            let channel = try await PeerChannels.dial(
                listener.address,
                group: group,
                tls: ada.tls,
                wiring: (ada.setup(.initiator, configuration: configuration), ada.verifier(), log.sink)
            )
            #expect(await log.wait(for: PeerConnectionTests.authenticated) == bob.identity.deviceID)
            try await channel.close()
        }
        await listener.close()
    }
}
