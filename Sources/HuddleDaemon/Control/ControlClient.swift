import Foundation
import HuddleErrors
public import NIOCore
import NIOPosix

/// The command line's end of the control socket: finds a daemon for its data directory, sends one request and
/// hands each reply on until the one that ends it.
public struct ControlClient: Sendable {
    let paths: DaemonPaths
    let group: any EventLoopGroup

    public init(paths: DaemonPaths, group: (any EventLoopGroup)? = nil) {
        self.paths = paths
        self.group = group ?? MultiThreadedEventLoopGroup.singleton
    }

    /// Whether a daemon answers at the socket: connects, and says no when nothing listens there.
    public func isRunning() async -> Bool {
        guard FileManager.default.fileExists(atPath: paths.controlSocket) else { return false }
        guard let channel = try? await connect() else { return false }
        try? await channel.channel.close()
        return true
    }

    /// Sends `request` and calls `reply` with every answer; returns the exit status the daemon gave.
    ///
    /// - Throws: ``DaemonError/Code/connectionLost`` when the daemon went away before it said it was done, or the
    ///   error of the connection when none listens.
    public func send(_ request: ControlRequest, reply: @Sendable (ControlReply) async -> Void) async throws -> Int32 {
        let channel = try await connect()
        return try await channel.executeThenClose { inbound, outbound in
            let bytes = try JSONEncoder().encode(request)
            try await outbound.write(ByteBuffer(bytes: bytes + [UInt8(ascii: "\n")]))
            for try await line in inbound {
                let answer: ControlReply
                do {
                    answer = try JSONDecoder().decode(ControlReply.self, from: Data(line.readableBytesView))
                } catch {
                    throw DaemonError(.protocolMismatch, "the daemon answered something unreadable: \(error)")
                }
                if let status = answer.exit { return status }
                await reply(answer)
            }
            throw DaemonError(.connectionLost, "the daemon closed the connection before it was done")
        }
    }

    func connect() async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try await ClientBootstrap(group: group).connect(unixDomainSocketPath: paths.controlSocket) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(ControlLineDecoder()))
                return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
    }
}
