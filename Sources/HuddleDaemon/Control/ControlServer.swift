import Foundation
import HuddleApp
public import Logging
public import NIOCore
import NIOPosix
public import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// Writes the daemon's answer to one request, a line at a time (``ControlReply``).
public struct ControlReplies: Sendable {
    public let send: @Sendable (ControlReply) async -> Void

    public init(_ send: @escaping @Sendable (ControlReply) async -> Void) { self.send = send }

    public func line(_ text: String) async { await send(.line(text)) }
    public func error(_ text: String) async { await send(.error(text)) }
    public func link(_ text: String) async { await send(ControlReply(link: text)) }
    /// `value` as one JSON record (``JSONLine``); nothing when it cannot be encoded.
    public func record(_ value: some Encodable) async {
        if let text = JSONLine.text(value) { await send(ControlReply(record: text)) }
    }
}

/// The daemon's end of the control socket (docs/daemon.md, "Control protocol"): a Unix socket, mode 0600 in an
/// owner-only folder, that answers only processes of its own user (`SO_PEERCRED`). Each connection carries one
/// request; `handle` answers it through ``ControlReplies`` and returns the exit status sent last.
public struct ControlServer: Service {
    public typealias Handler = @Sendable (ControlRequest, ControlReplies) async -> Int32

    let paths: DaemonPaths
    let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
    let handle: Handler
    let logger: Logger

    /// Binds the socket (replacing a stale one: the caller holds the ``DaemonLock``), mode 0600, in the runtime
    /// folder (made owner-only); ``run()`` then serves it.
    public static func bind(
        paths: DaemonPaths,
        group: any EventLoopGroup,
        logger: Logger,
        handle: @escaping Handler
    ) async throws -> ControlServer {
        try paths.makeRuntimeDirectory()
        let path = paths.controlSocket
        let server = try await ServerBootstrap(group: group)
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(ControlLineDecoder()))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        chmod(path, 0o600)
        return ControlServer(paths: paths, server: server, handle: handle, logger: logger)
    }

    /// Serves until the group shuts down, then removes the socket.
    public func run() async throws {
        defer { unlink(paths.controlSocket) }
        // Shutting down cancels every request in flight (a pairing link's wait), then closes the socket.
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingDiscardingTaskGroup { group in
                    try await server.executeThenClose { connections in
                        for try await connection in connections {
                            group.addTask { await serve(connection) }
                        }
                    }
                }
            }
        } catch is CancellationError {
            // The way a graceful shutdown ends it.
        }
    }

    /// One connection: its user checked, one request read and answered.
    func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        switch await Self.peerUser(of: connection.channel) {
        case getuid()?:
            break
        case let other?:
            logger.warning("control socket: refused a connection from another user (user ID \(other))")
            try? await connection.channel.close()
            return
        case nil:
            // Gone before its user could be read: a command that only looked whether a daemon runs. Closed
            // unanswered all the same, and nothing to warn of.
            try? await connection.channel.close()
            return
        }
        try? await connection.executeThenClose { inbound, outbound in
            let replies = ControlReplies { reply in
                guard let bytes = try? JSONEncoder().encode(reply) else { return }
                try? await outbound.write(ByteBuffer(bytes: bytes + [UInt8(ascii: "\n")]))
            }
            var lines = inbound.makeAsyncIterator()
            guard let line = try await lines.next() else { return }
            switch Self.request(from: line) {
            case .success(let request):
                // The request runs until it ends or the command closes the connection (or sends more: one request
                // per connection), which cancels it: a chat follows until its command leaves.
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await replies.send(.end(await handle(request, replies))) }
                    _ = try? await lines.next()
                    group.cancelAll()
                }
            case .failure(let refusal):
                await replies.error(refusal.message)
                await replies.send(.end(refusal.status))
            }
        }
    }

    /// Why a request line is not answered: the words and the exit status sent back.
    public struct Refusal: Error, Equatable {
        public let message: String
        public let status: Int32
    }

    /// The request a line carries, or why it is refused: unreadable (65), or of another version (69).
    public static func request(from line: ByteBuffer) -> Result<ControlRequest, Refusal> {
        struct Versioned: Decodable { let version: Int }
        let bytes = Data(line.readableBytesView)
        // The version first: a request of another version may not decode as this one's.
        guard let versioned = try? JSONDecoder().decode(Versioned.self, from: bytes) else {
            return .failure(
                Refusal(message: "the daemon could not read the request: not a control message", status: 65)
            )
        }
        guard versioned.version == ControlProtocol.version else {
            return .failure(
                Refusal(
                    message: "this daemon speaks control protocol \(ControlProtocol.version), not "
                        + "\(versioned.version): run the same version of huddle as the daemon",
                    status: 69
                )
            )
        }
        do {
            return .success(try JSONDecoder().decode(ControlRequest.self, from: bytes))
        } catch {
            return .failure(Refusal(message: "the daemon could not read the request: \(error)", status: 65))
        }
    }

    /// The user ID of the process at the other end of a Unix socket (`SO_PEERCRED`), or nil when unknown.
    static func peerUser(of channel: any Channel) async -> UInt32? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        let credentials: PeerCredentials? = try? await provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(SO_PEERCRED)
        ).get()
        return credentials?.uid
    }
}

/// `struct ucred` of socket(7) (`SO_PEERCRED`), which Glibc's module does not export: the process, user and group
/// of the other end, in this order.
struct PeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
