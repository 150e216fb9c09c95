import ArgumentParser
import Crypto
import Foundation
import Huddle
import HuddleDiscovery
import HuddleForeign
import HuddleKDEConnect
import HuddleLocalSend
import HuddleMDNSCore
import HuddleTransport
import ServiceLifecycle
import X509

/// Options of the commands that also speak other protocols (`send`, `receive`, `peers`): LocalSend today.
struct ForeignOptions: ParsableArguments {
    @Flag(
        name: .customLong("no-localsend"),
        help: "Do not speak LocalSend (by default this command also finds LocalSend devices and is found by them)."
    )
    var noLocalSend = false

    @Flag(
        name: .customLong("no-kdeconnect"),
        help: "Do not speak KDE Connect (by default this command also finds KDE Connect devices and is found by them)."
    )
    var noKDEConnect = false

    @Option(
        name: .customLong("localsend-port"),
        help: ArgumentHelp(
            "TCP port of the LocalSend API (default: 53317, or any free port when another program has it).",
            valueName: "port"
        )
    )
    var localSendPort: Int?

    @Flag(
        name: .customLong("allow-plain-http"),
        help: ArgumentHelp(
            "Send to and take from LocalSend devices that speak plain HTTP. Anyone on the network can then read "
                + "and change what is sent: refused by default."
        )
    )
    var allowPlainHTTP = false

    func validate() throws {
        if let localSendPort, !(0...65535).contains(localSendPort) {
            throw ValidationError("--localsend-port takes 0 to 65535")
        }
    }

    /// The foreign protocols' services for a command run by `options`; none with --no-localsend.
    func services(
        options: SessionOptions,
        takesOffers: Bool,
        share: LocalSendShareConfiguration? = nil
    ) throws -> ForeignPeers {
        let directory = options.configuration().dataDirectory
        let pins = ForeignPinStore(directory: directory)
        guard !noLocalSend || !noKDEConnect else { return ForeignPeers(localSend: nil, kdeConnect: nil, pins: pins) }
        let context = try Self.context(options: options)
        let kdeConnect =
            noKDEConnect
            ? nil : try Self.kdeConnectService(options: options, context: context, takesOffers: takesOffers)
        let (identity, discovery, usesInterface) = (context.identity, context.discovery, context.usesInterface)
        guard !noLocalSend else { return ForeignPeers(localSend: nil, kdeConnect: kdeConnect, pins: pins) }
        var configuration = LocalSendConfiguration(alias: options.displayName)
        configuration.takesOffers = takesOffers
        configuration.share = share
        configuration.allowsPlainHTTP = allowPlainHTTP
        if let localSendPort { configuration.port = localSendPort }
        if discovery.families == [.v6] { configuration.usesMulticast = false }  // LocalSend multicasts on IPv4
        configuration.usesInterface = usesInterface
        configuration.listenAddresses = context.listenAddresses
        let certificate: [UInt8]
        do {
            certificate = try ForeignCertificate.loadOrIssue(
                "localsend",
                subject: try DistinguishedName { CommonName("Huddle") },
                key: identity.privateKey,
                in: directory
            )
        } catch {
            Output.error("LocalSend: the certificate cannot be kept in \(directory.path): \(error)")
            throw ExitCode.failure
        }
        let credentials = LocalSendCredentials(certificateDER: certificate, privateKey: identity.privateKey)
        return ForeignPeers(
            localSend: try LocalSendService(configuration: configuration, credentials: credentials),
            kdeConnect: kdeConnect,
            pins: pins
        )
    }

    /// What every foreign protocol of a command needs: the device's key, and which interfaces it uses.
    struct Context {
        let identity: DeviceIdentity
        let directory: URL
        let pins: ForeignPinStore
        let discovery: DiscoveryConfiguration
        let usesInterface: @Sendable (String, Bool, Bool) -> Bool
        /// Where their servers listen: every IPv4 address, or only those of the interfaces `--interface` names.
        let listenAddresses: [String]
    }

    static func context(options: SessionOptions) throws -> Context {
        let directory = options.configuration().dataDirectory
        let pins = ForeignPinStore(directory: directory)
        do {
            // A pin file that cannot be read would make every pinned device look new: nothing starts.
            _ = try pins.load()
        } catch {
            Output.error("LocalSend and KDE Connect: \(error)")
            throw ExitCode.failure
        }
        let identity: DeviceIdentity
        do {
            identity = try DeviceIdentity.loadOrCreate(in: directory)
        } catch {
            Output.error("LocalSend and KDE Connect: \(error)")
            throw ExitCode.failure
        }
        let discovery = options.network.configuration()
        let listenAddresses = try listenAddresses(discovery)
        return Context(
            identity: identity,
            directory: directory,
            pins: pins,
            discovery: discovery,
            usesInterface: { name, isLoopback, isPointToPoint in
                discovery.exclusion(name: name, isLoopback: isLoopback, isPointToPoint: isPointToPoint) == nil
            },
            listenAddresses: listenAddresses
        )
    }

    /// The addresses the foreign protocols listen on (``ForeignListenAddresses``); the command fails, saying why,
    /// when `--interface` names interfaces without an IPv4 address, rather than listen on every other one.
    static func listenAddresses(_ discovery: DiscoveryConfiguration) throws -> [String] {
        let addresses = ForeignListenAddresses.addresses(
            allowInterfaces: discovery.allowInterfaces,
            denyInterfaces: discovery.denyInterfaces,
            of: (try? ForeignListenAddresses.hostAddresses()) ?? []
        )
        guard addresses.isEmpty else { return addresses }
        let named = discovery.allowInterfaces.joined(separator: ", ")
        Output.error(
            "LocalSend and KDE Connect speak IPv4 and \(named) has no IPv4 address to listen on: "
                + "--no-localsend --no-kdeconnect leaves them out"
        )
        throw ExitCode.failure
    }

    /// KDE Connect alone, taking no offers: for `huddle clip sync`, which keeps paired devices' clipboards in step.
    static func kdeConnectForClipboard(options: SessionOptions) throws -> ForeignPeers {
        let context = try context(options: options)
        let service = try kdeConnectService(options: options, context: context, takesOffers: false)
        return ForeignPeers(localSend: nil, kdeConnect: service, pins: context.pins)
    }

    /// KDE Connect with the device's key, its device ID from that key, and a certificate kept for it.
    static func kdeConnectService(
        options: SessionOptions,
        context: Context,
        takesOffers: Bool
    ) throws -> KDEConnectService {
        let (identity, directory, pins) = (context.identity, context.directory, context.pins)
        let deviceId = KDEConnectCredentials.deviceID(for: identity.privateKey.publicKey)
        let certificate: [UInt8]
        do {
            certificate = try ForeignCertificate.loadOrIssue(
                "kdeconnect",
                subject: try DistinguishedName {
                    OrganizationName("KDE")
                    OrganizationalUnitName("Kde connect")
                    CommonName(deviceId)
                },
                key: identity.privateKey,
                in: directory
            )
        } catch {
            Output.error("KDE Connect: the certificate cannot be kept in \(directory.path): \(error)")
            throw ExitCode.failure
        }
        var configuration = KDEConnectConfiguration(name: options.displayName)
        configuration.takesOffers = takesOffers
        configuration.usesInterface = context.usesInterface
        configuration.listenAddresses = context.listenAddresses
        configuration.announces = context.discovery.families != [.v6]  // KDE Connect announces on IPv4
        return KDEConnectService(
            configuration: configuration,
            credentials: .init(deviceId: deviceId, certificateDER: certificate, privateKey: identity.privateKey),
            pins: pins
        )
    }
}

/// The foreign protocols a command speaks, as one: their peers, found by name.
struct ForeignPeers: Sendable {
    let localSend: LocalSendService?
    let kdeConnect: KDEConnectService?
    /// The fingerprints pinned on first accepted use.
    let pins: ForeignPinStore

    var services: [any ForeignPeerService] {
        (localSend.map { [$0] } ?? []) + (kdeConnect.map { [$0] } ?? [])
    }
    /// The same, as services of the command's service group.
    var lifecycle: [any Service] { (localSend.map { [$0] } ?? []) + (kdeConnect.map { [$0] } ?? []) }

    /// Every foreign peer found so far. Other Huddle programs, which also speak LocalSend, are left out: they are
    /// Huddle peers, reached by Huddle's own protocol.
    func peers() async -> [(peer: ForeignPeer, service: any ForeignPeerService)] {
        var found: [(ForeignPeer, any ForeignPeerService)] = []
        for service in services {
            for peer in await service.peers() where peer.deviceModel != LocalSendConfiguration.huddleModel {
                found.append((peer, service))
            }
        }
        return found
    }

    /// Foreign peers that `name` names: "NAME", "localsend:NAME", or a fingerprint (at least 8 hex digits of
    /// its start).
    func named(_ name: String) async -> [(peer: ForeignPeer, service: any ForeignPeerService)] {
        let (scheme, rest) = Self.split(name)
        return await peers().filter { candidate in
            if let scheme, scheme != candidate.peer.protocol { return false }
            if candidate.peer.name == rest { return true }
            guard rest.count >= 8, rest.allSatisfy(\.isHexDigit), let fingerprint = candidate.peer.fingerprint else {
                return false
            }
            return fingerprint.uppercased().hasPrefix(rest.uppercased())
        }
    }

    /// "localsend:Pixel" → (.localSend, "Pixel"); "Pixel" → (nil, "Pixel").
    static func split(_ name: String) -> (ForeignProtocol?, String) {
        for proto in ForeignProtocol.allCases {
            let prefix = proto.rawValue.lowercased().replacingOccurrences(of: " ", with: "") + ":"
            if name.lowercased().hasPrefix(prefix) { return (proto, String(name.dropFirst(prefix.count))) }
        }
        return (nil, name)
    }

    /// True when `name` can only mean a foreign peer.
    static func isForeignOnly(_ name: String) -> Bool { split(name).0 != nil }
}

extension ForeignPeers {
    /// What the pins say about `peer`; nil (and said) when the pin file cannot be read: then nothing is taken
    /// from or sent to an unpinned device (``ForeignConsent``), as with Huddle's own trust store.
    func trust(of peer: ForeignPeer) -> ForeignTrust? {
        do {
            return try pins.load().trust(of: peer)
        } catch {
            Output.error("\(error)")
            return nil
        }
    }

    /// Pins `peer` after the user accepted a transfer with it, and says so.
    func pinAfterUse(_ peer: ForeignPeer) {
        guard let fingerprint = peer.fingerprint else { return }
        do {
            if try pins.pin(peer) {
                Output.line(
                    "* pinned \(peer.protocol.rawValue) device \(peer.name) (fingerprint \(fingerprint.prefix(16))…) on "
                        + "first use: nothing verified it; another certificate under this name will be warned about"
                )
            }
        } catch {
            Output.error("could not pin \(peer.name): \(error)")
        }
    }
}
