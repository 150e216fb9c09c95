import Foundation
import Huddle
import HuddleClipboard
import HuddlePasteboard
import HuddleTestSupport

/// Clipboard syncs on sessions connected in memory (`MemoryNetwork`) that trust on first use, each sync running and its events
/// recorded: what the clipboard tests share.
struct ClipboardPeers: Sendable {
    let syncs: [ClipboardSync]
    /// Each sync's events, in the order of `syncs`.
    let events: [EventRecorder<ClipboardSyncEvent>]
    let runs: [Task<Void, any Error>]

    /// Waits until sync `index` has taken part with `count` peers; returns them in the order they connected, or
    /// nil when they did not within `timeout`.
    func connectedPeers(_ index: Int, count: Int = 1, within timeout: Duration = .seconds(30)) async -> [PeerID]? {
        var peers: [PeerID] = []
        return await events[index].first(within: timeout) { event -> [PeerID]? in
            guard case .peerConnected(let peer, _) = event else { return nil }
            peers.append(peer)
            return peers.count == count ? peers : nil
        }
    }

    /// Ends the runs and stops the sessions.
    func stop() async {
        for run in runs { run.cancel() }
        for sync in syncs { await sync.session.stop() }
        for recorder in events { recorder.stop() }
    }
}

/// Runs `body` with a sync per name (see ``ClipboardPeers``) and stops them all afterwards, also when `body` throws
/// or a `#require` fails.
///
/// - Parameters:
///   - pasteboards: the clipboard each named peer keeps in step; a peer without one only exchanges shares.
///   - wallClock: the syncs' wall clock, when a test sets it by hand.
///   - clock: the sessions' clock (which the syncs pace their writes on), when a test moves it by hand.
func withClipboardPeers<T>(
    _ names: [String],
    sessionID: String = "HuddleClipboard",
    pasteboards: [String: any GeneralPasteboard] = [:],
    wallClock: (@Sendable () -> UInt64)? = nil,
    clock: ManualSessionClock? = nil,
    _ body: (ClipboardPeers) async throws -> T
) async throws -> T {
    let network = MemoryNetwork()
    let sessions = try await makeUnprobedSessions(names, sessionID: sessionID) { configuration in
        network.configure(&configuration)
        clock?.configure(&configuration)
        configuration.trustsOnFirstUse = true
        configuration.connectsToFoundPeers = true
        configuration.transfers.maximumInMemorySize = 32 << 20
    }
    let syncs = zip(names, sessions).map { name, session in
        let pasteboard = pasteboards[name]
        var configuration = ClipboardSyncConfiguration()
        configuration.syncs = pasteboard != nil
        if let wallClock {
            return ClipboardSync(
                session: session,
                pasteboard: pasteboard,
                configuration: configuration,
                wallClock: wallClock
            )
        }
        return ClipboardSync(session: session, pasteboard: pasteboard, configuration: configuration)
    }
    let peers = ClipboardPeers(
        syncs: syncs,
        events: syncs.map { EventRecorder(recording: $0.events) },
        runs: syncs.map { sync in Task { try await sync.run() } }
    )
    do {
        let value = try await body(peers)
        await peers.stop()
        return value
    } catch {
        await peers.stop()
        throw error
    }
}
