public import Foundation
public import HuddleBase
public import HuddleForeign
public import HuddleLocalSendWire
public import Logging
public import NIOCore
import NIOPosix

/// How this device takes part in LocalSend (docs/localsend.md).
public struct LocalSendConfiguration: Sendable {
    /// The name other devices show.
    public var alias: String
    public var deviceModel: String? = LocalSendConfiguration.huddleModel
    /// "headless" (a program without a window); "desktop" and "mobile" are the others apps use.
    public var deviceType = "headless"
    /// The API's TCP port: this one when free, else any free port (which announcements then name).
    public var port = 53317
    /// The multicast group and port of announcements.
    public var multicastGroup = "224.0.0.167"
    public var multicastPort = 53317
    /// Whether to announce and listen by multicast at all (off: only devices probed by address are known).
    public var usesMulticast = true
    /// Which interfaces (by name, with their loopback and point-to-point flags) multicast uses; the command line
    /// applies its discovery rules here (`--interface`, `--deny-interface`).
    public var usesInterface: @Sendable (_ name: String, _ isLoopback: Bool, _ isPointToPoint: Bool) -> Bool = {
        !$1 && !$2
    }
    /// The IPv4 addresses the API and the share page listen on: all by default, the addresses of the interfaces
    /// `--interface` names when it does (``ForeignListenAddresses``). The multicast socket stays on 0.0.0.0 and
    /// heeds only what comes in on interfaces ``usesInterface`` takes.
    public var listenAddresses = ["0.0.0.0"]
    /// Hosts asked who they are (`/info` at LocalSend's default port, 53317) when the service starts and every
    /// ``probeInterval`` after: devices that multicast does not reach (`--peer`; docs/localsend.md, "By address").
    public var probedHosts: [String] = []
    public var probeInterval: Duration = .seconds(30)
    /// How often to announce after the first three (at 0, 1 and 3 s).
    public var announceInterval: Duration = .seconds(30)
    /// Whether offers are put to the user (`huddle receive`); when not, each is declined at once.
    public var takesOffers = false
    /// Whether peers that speak plain HTTP may send or be sent to.
    public var allowsPlainHTTP = false
    public var limits = LocalSendLimits()
    /// The bandwidth limits on file bytes each way (`--limit-rate`; docs/design.md, "Bandwidth limits"), shared
    /// with KDE Connect when the caller gives both the same pacers.
    public var pacing = TransferPacers()
    /// What `huddle share` offers through the download API, and the page for browsers; nil: nothing.
    public var share: LocalSendShareConfiguration?
    /// The event loops every socket runs on; NIO's shared group by default.
    public var eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    /// Where the client's connections are made: TCP sockets by default, a test's memory otherwise.
    public var streams: any ForeignStreams = SocketStreams()
    /// Where the servers take their connections: TCP sockets by default, a test's memory otherwise.
    public var serving: any LocalSendServing = SocketServing()
    /// What the rules read as now (the device table, text rates, idle deadlines, share PINs); the system's continuous clock by default, a test's instants otherwise. Waits
    /// (announcement intervals, answer timeouts) still pass in real time.
    public var now: @Sendable () -> ContinuousClock.Instant = { .now }
    /// Where what cannot be reported as an event goes: multicast that cannot be used, announcements not sent.
    public var logger = Logger(label: "huddle.localsend", factory: { _ in SwiftLogNoOpLogHandler() })

    public init(alias: String) {
        self.alias = alias
    }
}

extension LocalSendConfiguration {
    /// The device model Huddle announces; how one Huddle program tells another among LocalSend devices.
    public static let huddleModel = ForeignPeer.huddleModel
}

/// The files `huddle share` offers (docs/localsend.md, "Sharing").
public struct LocalSendShareConfiguration: Sendable {
    public var files: [URL]
    /// The PIN a browser or an app must give first; nil: none.
    public var pin: String?
    /// The plain HTTP port of the page for browsers: this one when free, else any free port.
    public var httpPort = 53318
    /// Whether the page also lets a browser send files here (`huddle share --receive`): LocalSend's upload API on
    /// the page's server, each offer asked about like an app's (the service must take offers).
    public var receives = false
    /// When set, the page is one browser's (the daemon's page for a phone, docs/daemon.md): every request on its
    /// server must bring the pass in force (`?pass=`), and the files are not offered to apps on the API.
    public var pass: BrowserPasses?

    public init(files: [URL], pin: String? = nil, receives: Bool = false, pass: BrowserPasses? = nil) {
        self.files = files
        self.pin = pin
        self.receives = receives
        self.pass = pass
    }

    /// The daemon's page for a phone: nothing shared, files taken (each asked about), every request needing the
    /// pass in force.
    public static func phonePage(_ pass: BrowserPasses) -> Self { Self(files: [], receives: true, pass: pass) }

    /// Why `paths` cannot be shared — none named (and nothing received), one missing or a directory, two with the
    /// same name — or nil when they can.
    public static func problem(sharing paths: [String], receives: Bool) -> String? {
        if paths.isEmpty && !receives { return "name at least one file (or give --receive)" }
        var isDirectory: ObjCBool = false
        for path in paths {
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                return "no such file: \(path)"
            }
            if isDirectory.boolValue { return "\(path) is a directory: share its files" }
        }
        let names = paths.map { URL(fileURLWithPath: $0).lastPathComponent }
        return Set(names).count == names.count ? nil : "two files have the same name"
    }
}
