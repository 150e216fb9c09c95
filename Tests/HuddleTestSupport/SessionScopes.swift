public import Huddle
import Testing

/// Sessions on one in-memory directory, each with its own identity and trust store, on loopback. The caller
/// stops them; prefer ``TestScope/sessions(_:sessionID:modes:directory:configure:)``, which always does.
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

/// Two sessions that trust on first use, the first connected to the second. The caller stops them; prefer
/// ``TestScope/connectedPair(_:configure:)``, which always does.
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
        // The first side's `connected` is recorded too before the pair is handed over: a test that clears the
        // record next cannot find it there later and take it for a reconnect's.
        try #require(await probes[0].state(secondID, .connected))
        return (probes[0], probes[1], secondID, firstID)
    } catch {
        for probe in probes { await probe.stop() }
        throw error
    }
}
