public import HuddleBase
public import HuddleForeign
public import HuddleKDEConnectWire
public import Logging
public import NIOCore
import NIOPosix

/// How this device takes part in KDE Connect (docs/kdeconnect.md).
public struct KDEConnectConfiguration: Sendable {
    /// The name other devices show (cleaned of the characters the protocol forbids).
    public var name: String
    public var deviceType = "desktop"
    /// The protocol version announced: 8 (a version 7 device is spoken to in 7).
    public var protocolVersion = 8
    /// The UDP port of announcements, and the first TCP port tried for links (up to 1764).
    public var port = 1716
    public var tcpPorts: ClosedRange<Int> = 1716...1764
    /// The TCP ports a shared file is offered on.
    public var payloadPorts: ClosedRange<Int> = 1739...1764
    /// Whether to announce and listen for announcements at all.
    public var announces = true
    /// Which interfaces (by name, loopback, point-to-point) announcements use.
    public var usesInterface: @Sendable (_ name: String, _ isLoopback: Bool, _ isPointToPoint: Bool) -> Bool = {
        !$1 && !$2
    }
    /// The IPv4 addresses links and files are taken on: all by default, the addresses of the interfaces
    /// `--interface` names when it does (``ForeignListenAddresses``). The UDP socket stays on 0.0.0.0 and heeds
    /// only what comes in on interfaces ``usesInterface`` takes.
    public var listenAddresses = ["0.0.0.0"]
    /// Whether offers are put to the user (`huddle receive`); when not, they are not taken.
    public var takesOffers = false
    public var limits = KDEConnectLimits()
    /// The bandwidth limits on payload bytes each way (`--limit-rate`; docs/design.md, "Bandwidth limits"),
    /// shared with LocalSend when the caller gives both the same pacers.
    public var pacing = TransferPacers()
    /// Whether to link with other Huddle programs that speak KDE Connect (tests); they meet by Huddle's own
    /// protocol otherwise.
    public var linksWithHuddle = false
    /// The event loops every socket runs on; NIO's shared group by default.
    public var eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    /// Where links and files' connections are made: TCP sockets by default, a test's memory otherwise.
    public var streams: any ForeignStreams = SocketStreams()
    /// What the rules read as now (the dial rate, pairing windows); the system's continuous clock by default, a test's instants otherwise. Waits
    /// (announcement intervals, answer timeouts) still pass in real time.
    public var now: @Sendable () -> ContinuousClock.Instant = { .now }
    /// Where what the service cannot report as an event goes: a pin it could not write. Silent by default.
    public var logger = Logger(label: "huddle.kdeconnect", factory: { _ in SwiftLogNoOpLogHandler() })

    public init(name: String) {
        self.name = name
    }

    /// What this device can take and give.
    static let capabilities = [
        "kdeconnect.share.request", "kdeconnect.clipboard", "kdeconnect.clipboard.connect", "kdeconnect.ping",
    ]

    /// An outgoing capability only Huddle announces: how one Huddle program tells another among KDE Connect
    /// devices (they meet by Huddle's own protocol instead). KDE Connect ignores capabilities it does not know.
    public static let huddleMarker = "kdeconnect.huddle"
}
