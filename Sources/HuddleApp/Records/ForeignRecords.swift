public import HuddleForeign

// The JSON objects about LocalSend and KDE Connect devices (one per line with `--json`).

/// `found`: a LocalSend or KDE Connect device nearby, with what is known of its identity.
public struct DeviceFoundRecord: Encodable, Sendable, Equatable {
    public var event = "found"
    public var `protocol`: String
    public var name: String
    public var fingerprint: String
    public var address: String
    public var deviceType: String
    public var deviceModel: String
    /// `pinned`, `unpinned` or `changed` (``ForeignTrust/word``).
    public var trust: String
    /// Always false: nothing verifies who a foreign device is.
    public var verified = false

    public init(_ peer: ForeignPeer, trust: ForeignTrust) {
        self.protocol = peer.protocol.rawValue
        self.name = peer.name
        self.fingerprint = peer.fingerprint ?? ""
        self.address = peer.address
        self.deviceType = peer.deviceType ?? ""
        self.deviceModel = peer.deviceModel ?? ""
        self.trust = trust.word
    }
}

/// A device event with the device's name under `from` (`receive`): `paired` (with its fingerprint),
/// `pairingEnded` (with the reason), `clipboard` (its text was put on the clipboard).
public struct DeviceRecord: Encodable, Sendable, Equatable {
    public var event: String
    public var from: String
    public var `protocol`: String?
    public var fingerprint: String?
    public var reason: String?

    public static func paired(_ peer: ForeignPeer) -> Self {
        Self(event: "paired", from: peer.name, protocol: peer.protocol.rawValue, fingerprint: peer.fingerprint ?? "")
    }

    public static func pairingEnded(_ peer: ForeignPeer, reason: String) -> Self {
        Self(event: "pairingEnded", from: peer.name, protocol: peer.protocol.rawValue, reason: reason)
    }

    public static func textOnClipboard(from peer: ForeignPeer) -> Self {
        Self(event: "clipboard", from: peer.name)
    }
}

/// A device event with the device's name under `name` (`peers`): `paired`.
public struct NamedDeviceRecord: Encodable, Sendable, Equatable {
    public var event: String
    public var `protocol`: String
    public var name: String

    public static func paired(_ peer: ForeignPeer) -> Self {
        Self(event: "paired", protocol: peer.protocol.rawValue, name: peer.name)
    }
}

/// A device event with the device's name under `peer` (`clip sync`): `connected`, `disconnected`, `shared`…
public struct ClipDeviceRecord: Encodable, Sendable, Equatable {
    public var event: String
    public var peer: String
    public var `protocol`: String
    public var fingerprint: String

    public init(_ event: String, _ peer: ForeignPeer) {
        self.event = event
        self.peer = peer.name
        self.protocol = peer.protocol.rawValue
        self.fingerprint = peer.fingerprint ?? ""
    }
}

/// `text`: a text a device sent, taken.
public struct TextRecord: Encodable, Sendable, Equatable {
    public var event = "text"
    public var text: String
    public var from: String
    public var `protocol`: String

    public init(_ text: String, from peer: ForeignPeer) {
        self.text = text
        self.from = peer.name
        self.protocol = peer.protocol.rawValue
    }
}

/// `pairRequest` (a device asks to pair) or `pairConfirm` (a device accepted this one's request): the key both
/// screens show, to compare.
public struct PairingQuestionRecord: Encodable, Sendable, Equatable {
    public var event: String
    public var from: String
    public var `protocol`: String
    public var verificationKey: String
    public var fingerprint: String

    public init(_ event: String, _ peer: ForeignPeer, key: String) {
        self.event = event
        self.from = peer.name
        self.protocol = peer.protocol.rawValue
        self.verificationKey = key
        self.fingerprint = peer.fingerprint ?? ""
    }
}
