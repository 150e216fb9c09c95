public import Huddle
public import HuddleWire

// The JSON objects of `peers` about the session's Huddle peers (one per line with `--json`).

/// `found`: a Huddle peer of the session appeared (or showed again).
public struct PeerFoundRecord: Encodable, Sendable, Equatable {
    public var event = "found"
    public var peer: String
    public var name: String
    /// The start of its device ID ("" before it is known).
    public var device: String
    /// The address it was reached at when dialled directly ("" when found by mDNS).
    public var dialledAt: String
    /// What its advert carries beside the name (``PeerLobby``); a record comes again when it changes.
    public var lobby: [String: String]

    public init(_ info: PeerInfo) {
        self.peer = info.id.rawValue
        self.name = info.displayName
        self.device = info.deviceID?.shortID ?? ""
        self.dialledAt = info.dialledAt ?? ""
        self.lobby = info.lobby.values
    }
}

/// `request`: a peer asks to connect (answered by the next `y` or `n`).
public struct ConnectionRequestRecord: Encodable, Sendable, Equatable {
    public var event = "request"
    public var peer: String
    public var name: String
    /// The pairing code to compare ("" for a trusted device).
    public var code: String
    public var device: String
    /// Other devices of the same name seen before.
    public var namesakes: [String]

    public init(_ request: PeerConnectionRequest) {
        self.peer = request.peer.rawValue
        self.name = request.displayName
        self.code = request.code?.description ?? ""
        self.device = request.deviceID.shortID
        self.namesakes = request.namesakes.map(\.shortID)
    }
}

/// The other events of `peers` about the session: each with the fields it has, the rest left out.
public struct PeerEventRecord: Encodable, Sendable, Equatable {
    public var event: String
    public var peer: String?
    public var state: String?
    public var device: String?
    public var address: String?
    public var message: String?
    /// Whole seconds, as a string (`pairingPaused`).
    public var seconds: String?

    /// `state`: a peer's connection state changed.
    public static func state(_ state: PeerState, of peer: PeerID) -> Self {
        Self(event: "state", peer: peer.rawValue, state: state.rawValue)
    }

    /// `pairingPaused`: too many wrong pairing codes; pairing waits.
    public static func pairingPaused(_ pause: PairingBudget.Pause) -> Self {
        Self(event: "pairingPaused", message: "\(pause)", seconds: "\(pause.duration.components.seconds)")
    }

    /// `unreachable`: an address given with `--peer` (or `/peer`) did not answer as a Huddle peer, and why.
    public static func unreachable(_ address: PeerAddress, message: String) -> Self {
        Self(event: "unreachable", address: "\(address)", message: message)
    }

    /// `pairedByLink`: a device paired by a pairing link (verified).
    public static func pairedByLink(_ peer: PeerID, device: DeviceID) -> Self {
        Self(event: "pairedByLink", peer: peer.rawValue, device: device.shortID)
    }

    /// `error`: something went wrong with a peer (or the session: `peer` "").
    public static func error(_ error: any Error, peer: PeerID?) -> Self {
        Self(event: "error", peer: peer?.rawValue ?? "", message: "\(error)")
    }
}
