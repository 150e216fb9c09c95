public import Foundation
public import Huddle
public import HuddleWideArea
public import Logging

/// The settings of a session as a program is given them (flags now, the daemon's configuration file later):
/// checked, each refusal naming its setting (``SetupError``), and turned into a ``PeerSessionConfiguration``.
public struct SessionSetup: Sendable {
    /// The name others see; nil: this host's name (``displayName(hostName:)``).
    public var name: String?
    /// The session ID as given; nil: the program's default.
    public var sessionID: String?
    /// The TCP port to listen on; nil: ``PeerAddress/defaultPort``, or any free port when it is taken.
    public var port: Int?
    /// `HOST`, `HOST:PORT` or `[IPv6]:PORT` of peers to look for beside those found nearby.
    public var peerAddresses: [String] = []
    /// When a silent peer is reported disconnected, in seconds (1 to 3600).
    public var disconnectTimeout: Double = 15
    /// The bandwidth limit on transfers, each way, as `--limit-rate` takes it (``ByteRate``); nil: none.
    public var limitRate: String?
    /// `KEY=VALUE` entries of the lobby to advertise (``PeerLobby``), as `--lobby` takes them.
    public var lobby: [String] = []
    /// Whether first contacts are accepted without a code (pinned as trust on first use, never verified).
    public var trustsOnFirstUse = false
    /// The wide-area domain (``WideAreaSetup``), if any.
    public var wideArea: WideAreaConfiguration?
    /// Where the device key and trust store live.
    public var dataDirectory = PeerSessionConfiguration.defaultDataDirectory()
    /// Where what the session cannot report as an event goes.
    public var logger: Logger?

    public init() {}

    /// Refuses settings that cannot be used.
    public func validate() throws(SetupError) {
        if sessionID?.isEmpty == true { throw SetupError("session", "must not be empty") }
        if let name, name.isEmpty || name.utf8.count > 63 { throw SetupError("name", "takes 1 to 63 bytes of text") }
        if let port, !(0...65535).contains(port) { throw SetupError("port", "takes 0 to 65535") }
        _ = try addresses()
        _ = try rateLimits()
        _ = try advertisedLobby()
        if !(disconnectTimeout >= 1 && disconnectTimeout <= 3600) {
            throw SetupError("disconnect-timeout", "takes 1 to 3600 seconds")
        }
    }

    /// The parsed ``peerAddresses``.
    public func addresses() throws(SetupError) -> [PeerAddress] {
        var addresses: [PeerAddress] = []
        for text in peerAddresses {
            do {
                addresses.append(try PeerAddress(parsing: text))
            } catch {
                throw SetupError(
                    "peer",
                    "takes HOST, HOST:PORT or [IPv6]:PORT: \((error as? PeerSessionError)?.reason ?? "\(error)")"
                )
            }
        }
        return addresses
    }

    /// The parsed ``limitRate``, for sends and receives alike (a daemon adds per-device limits from its file).
    public func rateLimits() throws(SetupError) -> TransferRateLimits {
        let rule = "takes " + ByteRate.spelling
        var limits = TransferRateLimits()
        if let limitRate {
            guard let rate = ByteRate(parsing: limitRate) else { throw SetupError("limit-rate", rule) }
            (limits.sending, limits.receiving) = (rate, rate)
        }
        return limits
    }

    /// The parsed ``lobby``.
    public func advertisedLobby() throws(SetupError) -> PeerLobby {
        var parsed = PeerLobby()
        do {
            for entry in lobby { try parsed.apply(entry) }
        } catch {
            throw SetupError("lobby", "refused: \(error)")
        }
        return parsed
    }

    /// The name others see: ``name``, else the first label of `hostName`, else "Huddle".
    public func displayName(hostName: String) -> String {
        if let name, !name.isEmpty { return name }
        return hostName.split(separator: ".").first.map(String.init) ?? "Huddle"
    }

    /// The session's configuration (after ``validate()``: addresses that do not parse are left out).
    public func configuration() -> PeerSessionConfiguration {
        var configuration = PeerSessionConfiguration()
        configuration.dataDirectory = dataDirectory
        configuration.trustsOnFirstUse = trustsOnFirstUse
        configuration.listenPort = port ?? PeerAddress.defaultPort
        configuration.listenPortFallsBack = port == nil
        configuration.peerAddresses = (try? addresses()) ?? []
        configuration.wideArea = wideArea
        configuration.disconnectTimeout = .seconds(disconnectTimeout)
        configuration.transfers.rateLimits = (try? rateLimits()) ?? TransferRateLimits()
        configuration.lobby = (try? advertisedLobby()) ?? PeerLobby()
        if let logger { configuration.logger = logger }
        return configuration
    }
}
