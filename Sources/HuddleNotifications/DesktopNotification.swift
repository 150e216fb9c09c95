import Foundation

/// A notification to show: the arguments of `Notify` (Desktop Notifications Specification, "Notify").
public struct DesktopNotification: Sendable, Equatable {
    /// A button: its key comes back in `ActionInvoked`, its label is shown.
    public struct Action: Sendable, Equatable {
        public let key: String
        public let label: String

        public init(key: String, label: String) {
            self.key = key
            self.label = label
        }
    }

    public var appName = "Huddle"
    /// The notification this one replaces, or 0 for a new one.
    public var replacesID: UInt32 = 0
    public var appIcon = ""
    public var summary: String
    public var body: String
    public var actions: [Action]
    /// Hints (`urgency` a byte, `category` a string, …), by name.
    public var hints: [String: DBusValue]
    /// Milliseconds until it expires: -1 is the server's default, 0 never.
    public var expireTimeout: Int32

    public init(
        summary: String,
        body: String = "",
        actions: [Action] = [],
        hints: [String: DBusValue] = [:],
        expireTimeout: Int32 = -1
    ) {
        self.summary = summary
        self.body = body
        self.actions = actions
        self.hints = hints
        self.expireTimeout = expireTimeout
    }

    /// `text` safe in a body the server reads as markup (the `body-markup` capability; Desktop Notifications
    /// Specification, "Markup"): `&`, `<` and `>` as entities.
    public static func markupEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// The body of the `Notify` call: `susssasa{sv}i`.
    var arguments: [DBusValue] {
        [
            .string(appName), .uint32(replacesID), .string(appIcon), .string(summary), .string(body),
            .stringArray(actions.flatMap { [$0.key, $0.label] }),
            .stringVariantDictionary(hints.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }),
            .int32(expireTimeout),
        ]
    }
}
