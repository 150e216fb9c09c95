public import HuddleErrors

/// Why a desktop notification could not be shown or followed (docs/notifications.md): the session bus is not
/// reachable, refused to let us in, spoke out of the D-Bus Specification, or the notification server said no.
public typealias NotificationError = CodedError<NotificationErrorDomain>

/// The domain of ``NotificationError``'s codes.
public enum NotificationErrorDomain {}

extension ErrorCode where Domain == NotificationErrorDomain {
    /// The bus address names no socket that can be reached here.
    public static let unsupportedAddress = Self("unsupportedAddress")
    /// The bus did not accept the EXTERNAL authentication (D-Bus Specification, "Authentication Protocol").
    public static let authentication = Self("authentication")
    /// Bytes that break the wire format (D-Bus Specification, "Message Protocol"): a bad length, type, padding,
    /// string or nesting.
    public static let malformed = Self("malformed")
    /// A value that cannot be marshaled: a string with a NUL, an invalid object path, a signature too long.
    public static let unmarshalable = Self("unmarshalable")
    /// A method call was answered with an error message; the message names the D-Bus error.
    public static let remoteError = Self("remoteError")
    /// A reply had another signature than the method's.
    public static let unexpectedReply = Self("unexpectedReply")
    /// The connection to the bus closed.
    public static let disconnected = Self("disconnected")
}
