import HuddleTransport
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Synchronization

/// Collects a connection's events and lets a test wait for them.
final class EventLog: Sendable {
    private let state = NIOLockedValueBox<[PeerConnectionEvent]>([])
    private let stream: AsyncStream<PeerConnectionEvent>
    private let continuation: AsyncStream<PeerConnectionEvent>.Continuation
    private let iterator: Mutex<AsyncStream<PeerConnectionEvent>.Iterator?>

    init() {
        (stream, continuation) = AsyncStream.makeStream()
        iterator = Mutex(nil)
    }

    var sink: @Sendable (PeerConnectionEvent) -> Void {
        { [continuation] event in continuation.yield(event) }
    }

    /// The next event, or `nil` after `seconds`.
    func next(within seconds: Double = 30) async -> PeerConnectionEvent? {
        let stream = self.stream
        return await withTaskGroup(of: PeerConnectionEvent?.self) { group in
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
    }

    /// Skips events until one matches.
    func wait<T>(within seconds: Double = 30, for match: (PeerConnectionEvent) -> T?) async -> T? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            guard let event = await next(within: seconds) else { return nil }
            state.withLockedValue { $0.append(event) }
            if let value = match(event) { return value }
        }
        return nil
    }
}

struct TransportPeer {
    let identity: DeviceIdentity
    let tls: PeerTLS
    let store = TrustStore()
    let name: String

    init(_ name: String, closeNotifyTimeout: TimeAmount = .seconds(5)) throws {
        self.identity = try DeviceIdentity.ephemeral()
        self.tls = try PeerTLS(identity: identity, closeNotifyTimeout: closeNotifyTimeout)
        self.name = name
    }

    func setup(_ role: PeerRole, configuration: PeerConnectionConfiguration = .init()) -> PeerConnectionHandler.Setup {
        let store = self.store
        return .init(
            role: role,
            hello: PeerHello(versions: 2...2, sessionType: "_test._tcp", instance: name, displayName: name, mode: 0x70),
            fingerprint: identity.fingerprint,
            context: Array("hi".utf8),
            configuration: configuration,
            trust: { id in
                store.record(for: id).map { .pinned(maximumVersionSeen: $0.maximumVersionSeen) } ?? .unknown
            }
        )
    }

    func verifier(expecting expected: DeviceID? = nil) -> PeerVerifier {
        let store = self.store
        return PeerVerifier(expected: expected, isBlocked: { store.isBlocked($0) })
    }
}
