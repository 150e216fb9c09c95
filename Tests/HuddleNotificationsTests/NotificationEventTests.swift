import Testing

@testable import HuddleNotifications

/// Signals into events: only the server's, only the two signals with their signatures.
@Suite struct NotificationEventTests {
    static func signal(_ member: String, _ body: [DBusValue], from sender: String = ":1.5") -> DBusMessage {
        var message = DBusMessage(kind: .signal, body: body)
        (message.path, message.interface, message.member, message.sender) =
            ("/org/freedesktop/Notifications", "org.freedesktop.Notifications", member, sender)
        return message
    }

    @Test func theServersSignalsAreEvents() {
        #expect(
            NotificationEvent(signal: Self.signal("ActionInvoked", [.uint32(3), .string("accept")]), server: ":1.5")
                == .actionInvoked(id: 3, key: "accept")
        )
        #expect(
            NotificationEvent(signal: Self.signal("NotificationClosed", [.uint32(3), .uint32(2)]), server: ":1.5")
                == .closed(id: 3, reason: .dismissed)
        )
    }

    @Test func othersAreIgnored() {
        let action = Self.signal("ActionInvoked", [.uint32(3), .string("accept")], from: ":1.6")
        #expect(NotificationEvent(signal: action, server: ":1.5") == nil, "from another connection")
        #expect(NotificationEvent(signal: action, server: nil) == nil, "before the server answered anything")
        #expect(NotificationEvent(signal: Self.signal("ActionInvoked", [.uint32(3)]), server: ":1.5") == nil)
        #expect(NotificationEvent(signal: Self.signal("Other", [.uint32(3), .uint32(1)]), server: ":1.5") == nil)
    }

    @Test func notifyArgumentsHaveTheSpecifiedSignature() {
        let notification = DesktopNotification(
            summary: "Huddle: Bob wants to send photo.jpg",
            body: "photo.jpg, 2 MB",
            actions: [.init(key: "accept", label: "Accept"), .init(key: "decline", label: "Decline")],
            hints: ["urgency": .byte(1)]
        )
        let arguments = notification.arguments
        #expect(arguments.map(\.type.signature).joined() == "susssasa{sv}i")
        #expect(arguments[0] == .string("Huddle"))
        #expect(arguments[5] == .stringArray(["accept", "Accept", "decline", "Decline"]))
        #expect(arguments[6] == .stringVariantDictionary([("urgency", .byte(1))]))
        #expect(arguments[7] == .int32(-1))
    }
}
