public import Huddle
import Testing

/// Sessions on one in-memory directory, each with its own identity and trust store, on loopback. The caller
/// stops them; prefer ``withSessions(_:sessionID:modes:directory:configure:_:)``, which always does.
public func makeSessions(
    _ names: [String],
    sessionID: String = "TypingTogether",
    modes: [PeerSessionMode]? = nil,
    directory: InMemoryPeerDirectory = InMemoryPeerDirectory(),
    configure: (inout PeerSessionConfiguration) -> Void = { _ in }
) async throws -> [SessionProbe] {
    try await makeUnprobedSessions(
        names,
        sessionID: sessionID,
        modes: modes,
        directory: directory,
        configure: configure
    ).map(SessionProbe.init)
}

/// Runs `body` with started sessions (see ``makeSessions(_:sessionID:modes:directory:configure:_:)``) and
/// stops every one of them afterwards, also when `body` throws or a `#require` fails.
public func withSessions<T>(
    _ names: [String],
    sessionID: String = "TypingTogether",
    modes: [PeerSessionMode]? = nil,
    directory: InMemoryPeerDirectory = InMemoryPeerDirectory(),
    configure: (inout PeerSessionConfiguration) -> Void = { _ in },
    _ body: ([SessionProbe]) async throws -> T
) async throws -> T {
    let probes = try await makeSessions(
        names,
        sessionID: sessionID,
        modes: modes,
        directory: directory,
        configure: configure
    )
    do {
        let value = try await body(probes)
        for probe in probes { await probe.stop() }
        return value
    } catch {
        for probe in probes { await probe.stop() }
        throw error
    }
}

/// Two connected sessions: the first, the second, and each one's ID as the other sees it.
public struct ConnectedPair: Sendable {
    public let first: SessionProbe
    public let second: SessionProbe
    /// The second session as the first sees it.
    public let secondID: PeerID
    /// The first session as the second sees it.
    public let firstID: PeerID

    public func stop() async {
        await first.stop()
        await second.stop()
    }
}

/// Two sessions that trust on first use, the first connected to the second. The caller stops them; prefer
/// ``withConnectedPair(_:configure:_:)``, which always does.
public func connectedPair(
    _ names: [String] = ["Ada", "Bob"],
    configure: (inout PeerSessionConfiguration) -> Void = { _ in }
) async throws -> (first: SessionProbe, second: SessionProbe, secondID: PeerID, firstID: PeerID) {
    let probes = try await makeSessions(names) {
        $0.trustsOnFirstUse = true
        configure(&$0)
    }
    do {
        let secondID = try #require(await probes[0].found(named: names[1])).id
        try await probes[0].session.connect(to: secondID)
        let firstID = try #require(
            await probes[1].wait { event -> PeerID? in
                if case .stateChanged(let peer, .connected) = event { return peer }
                return nil
            }
        )
        return (probes[0], probes[1], secondID, firstID)
    } catch {
        for probe in probes { await probe.stop() }
        throw error
    }
}

/// Runs `body` with two connected sessions (see ``connectedPair(_:configure:)``) and stops both afterwards,
/// also when `body` throws or a `#require` fails.
public func withConnectedPair<T>(
    _ names: [String] = ["Ada", "Bob"],
    configure: (inout PeerSessionConfiguration) -> Void = { _ in },
    _ body: (ConnectedPair) async throws -> T
) async throws -> T {
    let made = try await connectedPair(names, configure: configure)
    let pair = ConnectedPair(first: made.first, second: made.second, secondID: made.secondID, firstID: made.firstID)
    do {
        let value = try await body(pair)
        await pair.stop()
        return value
    } catch {
        await pair.stop()
        throw error
    }
}
