import Foundation
import Huddle
import HuddleTransport
import NIOConcurrencyHelpers
import Testing

/// Reads a session's events in the background and lets a test wait for the one it needs.
final class SessionProbe: Sendable {
    let session: PeerSession
    private final class Log: Sendable {
        let events = NIOLockedValueBox<[PeerSessionEvent]>([])
    }

    private let log = Log()
    private let task: Task<Void, Never>

    init(_ session: PeerSession) {
        self.session = session
        let log = self.log
        task = Task {
            for await event in session.events { log.events.withLockedValue { $0.append(event) } }
        }
    }

    deinit { task.cancel() }

    var events: [PeerSessionEvent] { log.events.withLockedValue { $0 } }

    /// Waits until `match` finds something among the events seen so far (checked every 10 ms).
    func wait<T>(seconds: Double = 30, _ match: @escaping (PeerSessionEvent) -> T?) async -> T? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let found = events.lazy.compactMap(match).first { return found }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Drops what was seen so far.
    func clear() { log.events.withLockedValue { $0.removeAll() } }

    func request(direction: PeerConnectionRequest.Direction) async -> PeerConnectionRequest? {
        await wait {
            if case .connectionRequest(let request) = $0, request.direction == direction { return request }
            return nil
        }
    }

    func found(named name: String, seconds: Double = 30) async -> PeerInfo? {
        await wait(seconds: seconds) {
            if case .peerFound(let info) = $0, info.displayName == name { return info }
            return nil
        }
    }

    func state(_ peer: PeerID, _ state: PeerState, seconds: Double = 30) async -> Bool {
        await wait(seconds: seconds) {
            if case .stateChanged(peer, state) = $0 { return true }
            return nil
        } ?? false
    }

    func message(from peer: PeerID) async -> String? {
        await wait {
            if case .received(let bytes, peer) = $0 { return String(decoding: bytes, as: UTF8.self) }
            return nil
        }
    }

    /// Waits for a message from `peer` with exactly this text.
    func message(from peer: PeerID, equalTo text: String) async -> Bool {
        await wait {
            if case .received(let bytes, peer) = $0, bytes == Array(text.utf8) { return true }
            return nil
        } ?? false
    }

    func messages(from peer: PeerID) -> [[UInt8]] {
        events.compactMap {
            if case .received(let bytes, peer) = $0 { return bytes }
            return nil
        }
    }
}

/// Sessions on one in-memory directory, each with its own identity and trust store, on loopback.
func makeSessions(
    _ names: [String],
    sessionID: String = "TypingTogether",
    modes: [PeerSessionMode]? = nil,
    directory: InMemoryPeerDirectory = InMemoryPeerDirectory(),
    configure: (inout PeerSessionConfiguration) -> Void = { _ in }
) async throws -> [SessionProbe] {
    var probes: [SessionProbe] = []
    for (index, name) in names.enumerated() {
        var configuration = PeerSessionConfiguration()
        configuration.listenHost = "127.0.0.1"
        configure(&configuration)
        let session = try await PeerSession(
            sessionID: sessionID,
            displayName: name,
            mode: modes?[index] ?? .peer,
            configuration: configuration,
            directory: directory,
            identity: try DeviceIdentity.ephemeral(),
            trustStore: TrustStore()
        )
        try await session.start()
        probes.append(SessionProbe(session))
    }
    return probes
}

/// Two sessions that trust on first use, the first connected to the second; returns both and each one's ID as
/// the other sees it.
func connectedPair(
    _ names: [String] = ["Ada", "Bob"],
    configure: (inout PeerSessionConfiguration) -> Void = { _ in }
) async throws -> (first: SessionProbe, second: SessionProbe, secondID: PeerID, firstID: PeerID) {
    let probes = try await makeSessions(names) {
        $0.trustsOnFirstUse = true
        configure(&$0)
    }
    let secondID = try #require(await probes[0].found(named: names[1])).id
    try await probes[0].session.connect(to: secondID)
    let firstID = try #require(
        await probes[1].wait { event -> PeerID? in
            if case .stateChanged(let peer, .connected) = event { return peer }
            return nil
        }
    )
    return (probes[0], probes[1], secondID, firstID)
}

extension SessionProbe {
    /// The next file offered to this session.
    func offer() async -> IncomingTransfer? {
        await wait { event in
            if case .transferOffered(let transfer) = event { return transfer }
            return nil
        }
    }

    /// The URL of the next transfer this session received and kept.
    func finished() async -> URL? {
        await wait(seconds: 30) { event in
            if case .transferFinished(_, _, let url) = event { return url }
            return nil
        }
    }

    /// The reason of the next transfer that failed on this side.
    func failure() async -> String? {
        await wait { event in
            if case .transferFailed(_, _, .transferFailed(let reason)) = event { return reason }
            return nil
        }
    }

    /// Waits until a transfer to or from this session has passed `bytes`.
    func transferProgress(atLeast bytes: UInt64) async {
        _ = await wait(seconds: 30) { event -> Bool? in
            if case .transferProgress(let progress) = event, progress.completed >= bytes { return true }
            return nil
        }
    }
}
