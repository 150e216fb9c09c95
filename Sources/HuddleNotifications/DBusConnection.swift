import HuddleErrors
import NIOCore
import NIOPosix

/// A connection to a message bus (D-Bus Specification, "Message Bus Specification"): a Unix socket, the EXTERNAL
/// authentication, `Hello` for a unique name; then method calls that await their reply, and signals handed on.
final class DBusConnection: Sendable {
    static let bus = "org.freedesktop.DBus"
    static let busPath = "/org/freedesktop/DBus"
    /// How long a call or the authentication may take before it is given up.
    static let timeout = TimeAmount.seconds(25)

    private let channel: any Channel
    private let router: DBusRouter
    /// The name the bus gave this connection (`:1.42`).
    let uniqueName: String

    private init(channel: any Channel, router: DBusRouter, uniqueName: String) {
        self.channel = channel
        self.router = router
        self.uniqueName = uniqueName
    }

    /// Connects to the bus at `address` as user `userID` and says `Hello`. `reply` sees every reply first,
    /// `signal` every other message, `closed` the end of the connection.
    static func connect(
        to address: DBusAddress,
        userID: UInt32,
        group: any EventLoopGroup,
        reply: @escaping @Sendable (DBusMessage) -> Void,
        signal: @escaping @Sendable (DBusMessage) -> Void,
        closed: @escaping @Sendable (NotificationError) -> Void
    ) async throws -> DBusConnection {
        guard case .path(let path) = address.socket else {
            throw NotificationError(.unsupportedAddress, "an abstract socket address is not supported; give a path")
        }
        let router = DBusRouter(reply: reply, other: signal, failed: closed)
        let channel: any Channel
        let authenticated: EventLoopFuture<String>
        do {
            (channel, authenticated) = try await ClientBootstrap(group: group)
                .connect(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let promise = channel.eventLoop.makePromise(of: String.self)
                        let handler = DBusChannelHandler(userID: userID, router: router, authenticated: promise)
                        try channel.pipeline.syncOperations.addHandler(handler)
                        return (channel, promise.futureResult)
                    }
                }
        } catch {
            throw NotificationError(.disconnected, "cannot connect to the session bus at \(path): \(error)")
        }
        let timer = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        do {
            _ = try await authenticated.get()
            timer.cancel()
            let connection = DBusConnection(channel: channel, router: router, uniqueName: "")
            let hello = try await connection.call(
                .methodCall(destination: bus, path: busPath, interface: bus, member: "Hello")
            )
            guard let name = hello.body.first?.stringValue else {
                throw NotificationError(.unexpectedReply, "the bus answered Hello without a name")
            }
            return DBusConnection(channel: channel, router: router, uniqueName: name)
        } catch {
            timer.cancel()
            try? await channel.close()
            throw error
        }
    }

    /// Sends `message` and waits for its reply; an error reply throws ``NotificationError/Code/remoteError``.
    @discardableResult
    func call(_ message: DBusMessage) async throws -> DBusMessage {
        try await router.call(message) { [channel, router] serial, bytes in
            channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
            channel.eventLoop.scheduleTask(in: Self.timeout) {
                router.abandon(serial, NotificationError(.disconnected, "no reply to a call in 25 seconds"))
            }
        }
    }

    /// Asks the bus for the signals `rule` matches (D-Bus Specification, "Match Rules").
    func addMatch(_ rule: String) async throws {
        try await call(
            .methodCall(
                destination: Self.bus,
                path: Self.busPath,
                interface: Self.bus,
                member: "AddMatch",
                body: [.string(rule)]
            )
        )
    }

    func close() async {
        try? await channel.close()
    }
}
