/// A device found through a foreign protocol: never the same thing as a Huddle peer, whatever its name.
///
/// Neither foreign protocol verifies who is at the other end the way Huddle's pairing code does. What there is
/// to go by is a certificate ``fingerprint``, pinned on the first accepted use (``ForeignTrust``).
public struct ForeignPeer: Sendable, Hashable, Identifiable {
    /// The protocol and the peer's own identifier in it (a certificate fingerprint for LocalSend).
    public struct ID: Sendable, Hashable, CustomStringConvertible {
        public let `protocol`: ForeignProtocol
        public let value: String

        public init(protocol: ForeignProtocol, value: String) {
            self.protocol = `protocol`
            self.value = value
        }

        public var description: String { "\(`protocol`.rawValue):\(value)" }
    }

    public let id: ID
    /// The name the device gives itself (LocalSend's alias), shown sanitised.
    public var name: String
    /// Where it answers, as "address:port".
    public var address: String
    /// The certificate fingerprint, uppercase hex, when the protocol has one.
    public var fingerprint: String?
    /// What the device says it is ("mobile", "desktop", …) and its model, for display only.
    public var deviceType: String?
    public var deviceModel: String?
    /// True when it speaks plain HTTP: refused unless the user allowed it.
    public var isPlainHTTP: Bool

    public init(
        id: ID,
        name: String,
        address: String,
        fingerprint: String? = nil,
        deviceType: String? = nil,
        deviceModel: String? = nil,
        isPlainHTTP: Bool = false
    ) {
        self.id = id
        self.name = name
        self.address = address
        self.fingerprint = fingerprint
        self.deviceType = deviceType
        self.deviceModel = deviceModel
        self.isPlainHTTP = isPlainHTTP
    }

    public var `protocol`: ForeignProtocol { id.protocol }

    /// The device model Huddle announces in foreign protocols; how one Huddle program tells another among their
    /// devices.
    public static let huddleModel = "Huddle"

    /// True for another Huddle program: a Huddle peer, reached by Huddle's own protocol, not as a foreign device.
    public var isHuddle: Bool { deviceModel == Self.huddleModel }

    /// "LocalSend, fingerprint 247E5F7C…": how the peer is known, said plainly.
    public var identityText: String {
        guard let fingerprint else {
            return isPlainHTTP
                ? "\(`protocol`.rawValue) over plain HTTP, no fingerprint"
                : "\(`protocol`.rawValue), no certificate shown"
        }
        return "\(`protocol`.rawValue), fingerprint \(fingerprint.prefix(8))…"
    }
}
