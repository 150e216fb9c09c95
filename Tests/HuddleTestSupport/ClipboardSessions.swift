public import Huddle
import HuddleTransport

/// Started sessions whose events the caller hands to the code under test, which reads them itself (a
/// `ClipboardSync` does): a ``SessionProbe`` would take those events away, since a session's events have one
/// consumer. Each session has its own identity and trust store, on one in-memory directory, on loopback.
///
/// The caller stops them (the clipboard tests' `withClipboardPeers` does, also when its body throws); when one
/// fails to start, those already started are stopped before the error is thrown.
public func makeUnprobedSessions(
    _ names: [String],
    sessionID: String = "TypingTogether",
    modes: [PeerSessionMode]? = nil,
    directory: InMemoryPeerDirectory = InMemoryPeerDirectory(),
    configure: (inout PeerSessionConfiguration) -> Void = { _ in }
) async throws -> [PeerSession] {
    var sessions: [PeerSession] = []
    do {
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
            sessions.append(session)
            try await session.start()
        }
    } catch {
        for session in sessions { await session.stop() }
        throw error
    }
    return sessions
}
