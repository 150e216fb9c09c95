/// One D-Bus message (D-Bus Specification, "Message Format"): a method call, its return or error, or a signal,
/// with the header fields Huddle uses and a body of values.
public struct DBusMessage: Sendable, Equatable {
    /// The message type (the header's second byte).
    public enum Kind: UInt8, Sendable {
        case methodCall = 1
        case methodReturn = 2
        case error = 3
        case signal = 4
    }

    /// The header's flags byte.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let noReplyExpected = Flags(rawValue: 0x1)
        public static let noAutoStart = Flags(rawValue: 0x2)
        public static let allowInteractiveAuthorization = Flags(rawValue: 0x4)
    }

    public var kind: Kind
    public var flags: Flags = []
    /// Set by the connection when it sends the message; never 0 on the wire.
    public var serial: UInt32 = 0
    public var path: String?
    public var interface: String?
    public var member: String?
    public var errorName: String?
    public var replySerial: UInt32?
    public var destination: String?
    /// Set by the bus: the unique name of the connection that sent it.
    public var sender: String?
    public var body: [DBusValue] = []

    public init(kind: Kind, body: [DBusValue] = []) {
        self.kind = kind
        self.body = body
    }

    /// A method call to `member` of `interface` on the object `path` of `destination`.
    public static func methodCall(
        destination: String,
        path: String,
        interface: String,
        member: String,
        body: [DBusValue] = []
    ) -> DBusMessage {
        var message = DBusMessage(kind: .methodCall, body: body)
        (message.destination, message.path, message.interface, message.member) = (destination, path, interface, member)
        return message
    }

    /// The body's signature (the SIGNATURE header field).
    public var signature: String { body.map(\.type.signature).joined() }

    /// Whether the header fields the kind requires are there (D-Bus Specification, "Message Types").
    var hasRequiredFields: Bool {
        switch kind {
        case .methodCall: path != nil && member != nil
        case .signal: path != nil && interface != nil && member != nil
        case .methodReturn: replySerial != nil
        case .error: errorName != nil && replySerial != nil
        }
    }
}
