import Foundation
public import Huddle
public import HuddleDiscovery

extension SessionSetup {
    /// Starts a session of `mode` with these settings, finding peers through `discovery` (its own multicast DNS
    /// stack, stopped with it): the device key and trust store loaded from the data directory, or made there. A
    /// session that cannot start (its key unreadable, no usable interface) is stopped again and its error thrown.
    public func startSession(
        mode: PeerSessionMode,
        defaultSessionID: String,
        discovery: DiscoveryConfiguration,
        adjust: (inout PeerSessionConfiguration) -> Void = { _ in }
    ) async throws -> PeerSession {
        var configuration = configuration()
        configuration.discovery = discovery
        adjust(&configuration)
        let session = try await PeerSession.loadingIdentity(
            sessionID: sessionID ?? defaultSessionID,
            displayName: displayName(hostName: ProcessInfo.processInfo.hostName),
            mode: mode,
            configuration: configuration
        )
        do {
            try await session.start()
        } catch {
            await session.stop()
            throw error
        }
        return session
    }
}
