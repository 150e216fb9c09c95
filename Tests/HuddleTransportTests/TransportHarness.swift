import HuddleTestSupport
import HuddleTransport
import HuddleWire
import NIOCore
import NIOPosix
import Synchronization

/// A connection's events, read in order: `next` and `wait` each take events from where the previous call stopped.
///
/// Built on ``EventRecorder``: a wait is woken by each new event and ends at the first match, so it takes as long
/// as the awaited event takes; the deadline only ends a wait on broken code.
final class EventLog: Sendable {
    /// Every event of the connection, as reported.
    let recorder = EventRecorder<PeerConnectionEvent>()
    /// How many events `next` and `wait` have taken so far.
    private let taken = Mutex(0)

    var sink: @Sendable (PeerConnectionEvent) -> Void { recorder.sink }

    /// The next event not yet taken, or `nil` when none came within `seconds`.
    func next(within seconds: Double = 30) async -> PeerConnectionEvent? {
        await wait(within: seconds) { $0 }
    }

    /// Takes events until one matches and returns what `match` made of it; `nil` when none matched within
    /// `seconds` (the events looked at stay taken).
    func wait<T>(within seconds: Double = 30, for match: (PeerConnectionEvent) -> T?) async -> T? {
        let start = taken.withLock { $0 }
        var index = 0
        let found = await recorder.first(within: .seconds(seconds)) { event -> (T, Int)? in
            defer { index += 1 }
            guard index >= start, let value = match(event) else { return nil }
            return (value, index)
        }
        taken.withLock { $0 = max($0, found.map { $0.1 + 1 } ?? index) }
        return found?.0
    }

    /// The events not yet taken up to and including the connection's `.closed`, which is waited for; fewer (no
    /// `.closed`) when it did not close within `seconds`.
    func untilClosed(within seconds: Double = 30) async -> [PeerConnectionEvent] {
        let start = taken.withLock { $0 }
        _ = await wait(within: seconds) { $0.closeReason }
        let end = taken.withLock { $0 }
        return Array(recorder.events[start..<end])
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
