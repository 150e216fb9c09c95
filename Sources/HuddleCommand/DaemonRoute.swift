import ArgumentParser
import Foundation
import HuddleDaemon

/// The commands that go through a daemon when one runs for their data directory (docs/daemon.md).
enum DaemonRoute {
    /// The daemon of `data`'s directory, when one answers.
    static func client(_ data: DataDirectoryOption) async -> ControlClient? {
        let client = ControlClient(paths: DaemonPaths.current(dataDirectory: data.url))
        return await client.isRunning() ? client : nil
    }

    /// The daemon, or an error saying to start one (exit 69).
    static func required(_ data: DataDirectoryOption) async throws -> ControlClient {
        guard let client = await client(data) else {
            Output.error("no daemon runs for this data directory: start one with huddle daemon")
            throw ExitCode.unavailable
        }
        return client
    }

    /// Sends `request` and prints the replies (a link through `link`); exits with the daemon's status when it is
    /// not 0.
    static func run(
        _ client: ControlClient,
        _ request: ControlRequest,
        link: @escaping @Sendable (String) -> Void = { Output.line($0) }
    ) async throws {
        let status = try await CommandFailure.run { try await client.send(request) { show($0, link: link) } }
        if status != 0 { throw ExitCode(status) }
    }

    /// Replies printed as the daemon's are: for a request the command answers itself.
    static let printing = ControlReplies { show($0) }

    static func show(_ reply: ControlReply, link: @Sendable (String) -> Void = { Output.line($0) }) {
        if let line = reply.line { Output.line(line) }
        if let error = reply.error { Output.error(error) }
        if let text = reply.link { link(text) }
        if let record = reply.record { Output.json(text: record) }
    }
}
