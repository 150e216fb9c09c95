public import Foundation
public import Huddle
import NIOConcurrencyHelpers

/// What one test made and must undo: sessions to stop, scratch directories to remove, other clean-up to run.
///
/// ``withTestScope(_:)`` undoes all of it when the test's body ends, also when it throws or a `#require` fails,
/// so a failing test leaves no session, socket, task or directory behind for the rest of the run. Sessions are
/// stopped first (newest first), then the other clean-up runs (newest first), then the directories go.
public final class TestScope: Sendable {
    private struct State {
        var stops: [@Sendable () async -> Void] = []
        var cleanups: [@Sendable () async -> Void] = []
        var directories: [ScratchDirectory] = []
    }

    private let state = NIOLockedValueBox(State())

    fileprivate init() {}

    /// A fresh scratch directory, removed when the scope ends; `label` helps find a left-over one.
    public func directory(_ label: String = #function) throws -> URL {
        let directory = try ScratchDirectory(label)
        state.withLockedValue { $0.directories.append(directory) }
        return directory.url
    }

    /// Stops `session` when the scope ends (stopping twice is harmless).
    public func stop(_ session: PeerSession) {
        state.withLockedValue { $0.stops.append { await session.stop() } }
    }

    /// Stops the probe's session and its recording when the scope ends; returns the probe.
    @discardableResult
    public func adopt(_ probe: SessionProbe) -> SessionProbe {
        state.withLockedValue { $0.stops.append { await probe.stop() } }
        return probe
    }

    /// Runs `work` when the scope ends, after the sessions are stopped.
    public func onExit(_ work: @escaping @Sendable () async -> Void) {
        state.withLockedValue { $0.cleanups.append(work) }
    }

    /// Started sessions (see ``makeSessions(_:sessionID:modes:directory:configure:)``), stopped when the scope ends.
    public func sessions(
        _ names: [String],
        sessionID: String = "TypingTogether",
        modes: [PeerSessionMode]? = nil,
        directory: InMemoryPeerDirectory = InMemoryPeerDirectory(),
        configure: (inout PeerSessionConfiguration) -> Void = { _ in }
    ) async throws -> [SessionProbe] {
        let probes = try await makeSessions(
            names,
            sessionID: sessionID,
            modes: modes,
            directory: directory,
            configure: configure
        )
        for probe in probes { adopt(probe) }
        return probes
    }

    /// Two connected sessions (see ``connectedPair(_:configure:)``), stopped when the scope ends.
    public func connectedPair(
        _ names: [String] = ["Ada", "Bob"],
        configure: (inout PeerSessionConfiguration) -> Void = { _ in }
    ) async throws -> (first: SessionProbe, second: SessionProbe, secondID: PeerID, firstID: PeerID) {
        let pair = try await HuddleTestSupport.connectedPair(names, configure: configure)
        adopt(pair.first)
        adopt(pair.second)
        return pair
    }

    fileprivate func finish() async {
        let (stops, cleanups, directories) = state.withLockedValue { state in
            defer { state = State() }
            return (state.stops, state.cleanups, state.directories)
        }
        for stop in stops.reversed() { await stop() }
        for cleanup in cleanups.reversed() { await cleanup() }
        for directory in directories.reversed() { directory.remove() }
    }
}

/// Runs `body` with a ``TestScope`` and undoes everything registered with it afterwards, also when `body` throws.
public func withTestScope<T>(_ body: (TestScope) async throws -> T) async throws -> T {
    let scope = TestScope()
    do {
        let value = try await body(scope)
        await scope.finish()
        return value
    } catch {
        await scope.finish()
        throw error
    }
}
