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

/// `link`: what a connected peer's link measured (``PeerLinkStatistics``); `rttMs`, `rttVarMs`, `lossOut` and
/// `lossBack` are left out until the first PONG.
public struct LinkRecord: Encodable, Sendable, Equatable {
    public var event = "link"
    public var peer: String
    public var protocolVersion: Int
    /// `udp`, `unconfirmed` (no PONG yet), `tls` (unreliable messages on the TLS stream: UDP does not get
    /// through) or `none` (no datagrams on this link).
    public var datagramPath: String
    /// Unreliable messages sent on the TLS stream.
    public var messagesOnStream: UInt64
    public var rttMs: Double?
    public var rttVarMs: Double?
    public var lossOut: Double?
    public var lossBack: Double?
    public var datagramsSent: UInt64
    public var datagramsReceived: UInt64
    public var bytesSent: UInt64
    public var bytesReceived: UInt64
    public var queuedBytes: Int

    public init(_ statistics: PeerLinkStatistics, of peer: PeerID) {
        func milliseconds(_ duration: Duration?) -> Double? {
            duration.map { (Double($0.components.seconds) * 1e3 + Double($0.components.attoseconds) / 1e15) }
        }
        self.peer = peer.rawValue
        self.protocolVersion = Int(statistics.protocolVersion)
        self.datagramPath = statistics.datagramPath.rawValue
        self.rttMs = milliseconds(statistics.smoothedRoundTrip)
        self.rttVarMs = milliseconds(statistics.roundTripVariation)
        (self.lossOut, self.lossBack) = (statistics.lossOut, statistics.lossBack)
        (self.datagramsSent, self.datagramsReceived) = (statistics.datagramsSent, statistics.datagramsReceived)
        (self.bytesSent, self.bytesReceived) = (statistics.bytesSent, statistics.bytesReceived)
        (self.queuedBytes, self.messagesOnStream) = (statistics.queuedBytes, statistics.messagesOnStream)
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
