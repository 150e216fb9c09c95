import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import NIOPosix

/// A connection made by hand to a session: any device key, any HELLO (an impostor's instance, say), with the real
/// connection handler. Its events are kept in order for the test to wait on.
final class HandDialedConnection: Sendable {
    let channel: any Channel
    private let log: EventRecorder<PeerConnectionEvent>

    private init(channel: any Channel, log: EventRecorder<PeerConnectionEvent>) {
        self.channel = channel
        self.log = log
    }

    /// Dials `address` as `identity`, saying `hello`, over `network` (memory) or TCP when nil; `pinned` are the
    /// devices this side trusts without a code.
    static func dial(
        _ address: SocketAddress,
        as identity: DeviceIdentity,
        hello: PeerHello,
        pinned: Set<DeviceID> = [],
        over network: MemoryNetwork? = nil
    ) async throws -> HandDialedConnection {
        let log = EventRecorder<PeerConnectionEvent>()
        let setup = PeerConnectionHandler.Setup(
            role: .initiator,
            hello: hello,
            fingerprint: identity.fingerprint,
            context: [],
            configuration: .init(),
            trust: { pinned.contains($0) ? .pinned(maximumVersionSeen: 1) : .unknown }
        )
        let verifier = PeerVerifier(expected: nil, isBlocked: { _ in false })
        let tls = try PeerTLS(identity: identity)
        let channel =
            if let network {
                try await network.dial(address, tls: tls, wiring: (setup, verifier, log.sink))
            } else {
                try await PeerChannels.dial(
                    address,
                    group: MultiThreadedEventLoopGroup.singleton,
                    tls: tls,
                    wiring: (setup, verifier, log.sink)
                )
            }
        return HandDialedConnection(channel: channel, log: log)
    }

    /// The first event `match` takes, waiting up to `seconds` for it.
    func wait<T>(seconds: Double = 30, _ match: (PeerConnectionEvent) -> T?) async -> T? {
        await log.first(within: .seconds(seconds), where: match)
    }

    /// Why the connection closed (`.some(nil)`: after a goodbye), once it has.
    func closed(seconds: Double = 30) async -> PeerConnectionError?? {
        await wait(seconds: seconds) { event -> PeerConnectionError?? in
            if case .closed(let error) = event { return .some(error) }
            return nil
        }
    }

    func close() { channel.close(promise: nil) }
}
