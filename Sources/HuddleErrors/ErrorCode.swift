/// A failure's kind: one of an open set of codes that an error type (`Domain`) names for itself, in an extension
/// `where Domain == ThatError`. A caller compares with `==` or branches with a `default`, so codes can be added
/// without breaking its `switch`: the style of SwiftNIO's errors (docs/design.md, "Errors").
public struct ErrorCode<Domain>: Hashable, Sendable, CustomStringConvertible {
    /// The code's name as the source spells it (`fingerprintMismatch`).
    public let description: String

    package init(_ name: String) { description = name }
}
