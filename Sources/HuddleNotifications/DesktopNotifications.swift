import HuddleErrors
import NIOConcurrencyHelpers
public import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The desktop's notification server (Desktop Notifications Specification), reached over the session bus:
/// notifications shown with ``notify(_:)`` and closed with ``close(_:)``, and what the user does with them in
/// ``events``.
public final class DesktopNotifications: Sendable {
    static let name = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    static let interface = "org.freedesktop.Notifications"

    private let connection: DBusConnection
    /// The signals of the server, and ``NotificationEvent/disconnected(_:)`` last.
    public let events: AsyncStream<NotificationEvent>

    private init(connection: DBusConnection, events: AsyncStream<NotificationEvent>) {
        self.connection = connection
        self.events = events
    }

    /// Connects to the session bus at `address` and subscribes to the server's signals (`ActionInvoked`,
    /// `NotificationClosed`). A server that is not running yet is no error: the bus may start it at the first
    /// notification.
    ///
    /// - Throws: ``NotificationError`` when the bus cannot be reached or refuses us.
    public static func connect(
        address: DBusAddress,
        group: (any EventLoopGroup)? = nil
    ) async throws -> DesktopNotifications {
        let (events, sink) = AsyncStream.makeStream(of: NotificationEvent.self)
        // The server's unique name, learned from the sender of its replies: only its signals count.
        let server = NIOLockedValueBox<String?>(nil)
        let connection = try await DBusConnection.connect(
            to: address,
            userID: UInt32(getuid()),
            group: group ?? MultiThreadedEventLoopGroup.singleton,
            reply: { reply in
                if let sender = reply.sender, sender != DBusConnection.bus { server.withLockedValue { $0 = sender } }
            },
            signal: { message in
                if let event = NotificationEvent(signal: message, server: server.withLockedValue { $0 }) {
                    sink.yield(event)
                }
            },
            closed: { error in
                sink.yield(.disconnected(error.message))
                sink.finish()
            }
        )
        do {
            for member in ["ActionInvoked", "NotificationClosed"] {
                try await connection.addMatch(
                    "type='signal',sender='\(name)',path='\(path)',interface='\(interface)',member='\(member)'"
                )
            }
        } catch {
            await connection.close()
            throw error
        }
        return DesktopNotifications(connection: connection, events: events)
    }

    /// Shows `notification`; returns the id the server gave it.
    public func notify(_ notification: DesktopNotification) async throws -> UInt32 {
        let reply = try await connection.call(method("Notify", notification.arguments))
        guard let id = reply.body.first?.uint32Value, reply.body.count == 1 else {
            throw NotificationError(.unexpectedReply, "the notification server answered Notify with \(reply.signature)")
        }
        return id
    }

    /// What the server can do (`GetCapabilities`): `actions`, `body-markup`, …
    public func capabilities() async throws -> [String] {
        let reply = try await connection.call(method("GetCapabilities", []))
        guard reply.body.count == 1, case .array(.string, let names) = reply.body[0] else {
            throw NotificationError(
                .unexpectedReply,
                "the notification server answered GetCapabilities with \(reply.signature)"
            )
        }
        return names.compactMap(\.stringValue)
    }

    /// Closes notification `id` (`CloseNotification`); the server then sends `NotificationClosed`.
    public func close(_ id: UInt32) async throws {
        try await connection.call(method("CloseNotification", [.uint32(id)]))
    }

    /// Ends the connection; ``events`` ends with it.
    public func disconnect() async {
        await connection.close()
    }

    private func method(_ member: String, _ body: [DBusValue]) -> DBusMessage {
        .methodCall(destination: Self.name, path: Self.path, interface: Self.interface, member: member, body: body)
    }
}
