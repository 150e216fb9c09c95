/// What the notification server says about a notification (Desktop Notifications Specification, "Signals").
public enum NotificationEvent: Sendable, Equatable {
    /// `ActionInvoked`: the user chose the action `key` of notification `id`.
    case actionInvoked(id: UInt32, key: String)
    /// `NotificationClosed`: notification `id` is gone, for `reason`.
    case closed(id: UInt32, reason: CloseReason)
    /// The connection to the bus ended: no events come after it.
    case disconnected(String)

    /// Why a notification closed (the `reason` of `NotificationClosed`).
    public struct CloseReason: RawRepresentable, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let expired = CloseReason(rawValue: 1)
        public static let dismissed = CloseReason(rawValue: 2)
        /// Closed by `CloseNotification`.
        public static let closedByCall = CloseReason(rawValue: 3)
        public static let undefined = CloseReason(rawValue: 4)
    }

    /// The event a signal is, when it is one of the two signals of the interface, with their signatures, sent by
    /// `server` (the unique name that answered our calls to the notification server); nil for anything else.
    public init?(signal message: DBusMessage, server: String?) {
        guard message.kind == .signal, let server, message.sender == server,
            message.interface == DesktopNotifications.interface, message.path == DesktopNotifications.path
        else { return nil }
        guard message.body.count == 2, let id = message.body[0].uint32Value else { return nil }
        switch (message.member, message.body[1]) {
        case ("ActionInvoked", .string(let key)): self = .actionInvoked(id: id, key: key)
        case ("NotificationClosed", .uint32(let reason)): self = .closed(id: id, reason: CloseReason(rawValue: reason))
        default: return nil
        }
    }
}
