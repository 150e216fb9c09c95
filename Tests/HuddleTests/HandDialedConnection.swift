import HuddleTransport
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A connection made by hand to a session: any device key, any HELLO (an impostor's instance, say), with the real
/// connection handler. Its events are kept in order for the test to wait on.
final class HandDialedConnection: Sendable {
    let channel: any Channel
    private let log: Log

    private final class Log: Sendable {
        let events = NIOLockedValueBox<[PeerConnectionEvent]>([])
    }

    private init(channel: any Channel, log: Log) {
        self.channel = channel
        self.log = log
    }

    /// Dials `address` as `identity`, saying `hello`; `pinned` are the devices this side trusts without a code.
    static func dial(
        _ address: SocketAddress,
        as identity: DeviceIdentity,
        hello: PeerHello,
        pinned: Set<DeviceID> = []
    ) async throws -> HandDialedConnection {
        let log = Log()
        let setup = PeerConnectionHandler.Setup(
            role: .initiator,
            hello: hello,
            fingerprint: identity.fingerprint,
            context: [],
            configuration: .init(),
            trust: { pinned.contains($0) ? .pinned(maximumVersionSeen: 1) : .unknown }
        )
        let verifier = PeerVerifier(expected: nil, isBlocked: { _ in false })
        let channel = try await PeerChannels.dial(
            address,
            group: MultiThreadedEventLoopGroup.singleton,
            tls: try PeerTLS(identity: identity),
            wiring: (setup, verifier, { event in log.events.withLockedValue { $0.append(event) } })
        )
        return HandDialedConnection(channel: channel, log: log)
    }

    /// The first event `match` takes, waiting up to `seconds` for it.
    func wait<T>(seconds: Double = 30, _ match: @escaping (PeerConnectionEvent) -> T?) async -> T? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            let seen = log.events.withLockedValue { $0 }
            if let found = seen.lazy.compactMap(match).first { return found }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
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
