import Foundation

/// A protocol Huddle speaks besides its own (docs/design.md, "Foreign peers"): its name as shown ("LocalSend").
///
/// Open, not an enumeration: a third protocol declares its own value beside its ``ForeignPeerService``, and no
/// command switches over them. Stored (in the pins) and encoded as its name.
public struct ForeignProtocol: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The name as shown: "LocalSend", "KDE Connect".
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let localSend = ForeignProtocol(rawValue: "LocalSend")
    public static let kdeConnect = ForeignProtocol(rawValue: "KDE Connect")

    /// The name in lower case without spaces: the prefix a user types to mean it (`localsend:Pixel`), the file of
    /// its certificate.
    public var key: String { rawValue.lowercased().replacingOccurrences(of: " ", with: "") }

    public var description: String { rawValue }
}
