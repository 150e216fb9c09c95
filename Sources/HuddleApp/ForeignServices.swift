import Crypto
public import Foundation
import Huddle
public import HuddleBase
public import HuddleDiscovery
public import HuddleForeign
public import HuddleKDEConnect
public import HuddleLocalSend
import HuddleMDNSCore
import HuddleTransport
public import Logging
import ServiceLifecycle
import X509

/// What a program asks of the foreign protocols it speaks (docs/design.md, "Foreign peers"): which ones, on which
/// interfaces, and whether it takes offers.
public struct ForeignSetup: Sendable {
    /// The name shown to their devices.
    public var displayName: String
    /// The data directory: the device key, the certificates kept for each protocol, the pins.
    public var directory: URL
    /// The interfaces and families the program uses (`--interface`, `-4`/`-6`).
    public var discovery: DiscoveryConfiguration
    public var speaksLocalSend = true
    public var speaksKDEConnect = true
    /// True for a program that answers offers (`huddle receive`).
    public var takesOffers = false
    /// LocalSend's API port; nil for its default (53317, or any free port when another program has it).
    public var localSendPort: Int?
    /// Whether LocalSend devices that speak plain HTTP are sent to and taken from.
    public var allowsPlainHTTP = false
    /// Hosts to look for LocalSend devices at, where multicast may not reach (`--peer`'s hosts).
    public var peerHosts: [String] = []
    /// Files offered on LocalSend's download API (`huddle share`).
    public var share: LocalSendShareConfiguration?
    /// The bandwidth limit each way (`--limit-rate`), shared by both protocols' transfers.
    public var pacing = TransferPacers()
    /// Where the protocols say what they cannot report as an event (a pin they could not write).
    public var logger = Logger(label: "huddle.foreign", factory: { _ in SwiftLogNoOpLogHandler() })

    public init(displayName: String, directory: URL, discovery: DiscoveryConfiguration) {
        self.displayName = displayName
        self.directory = directory
        self.discovery = discovery
    }
}

/// Why the foreign protocols could not start; nothing was started.
public struct ForeignSetupError: Error, CustomStringConvertible, Sendable {
    public enum Code: Sendable, Equatable {
        /// The pin file cannot be read: every pinned device would look new.
        case pinsUnreadable
        /// The device key cannot be read or made.
        case identity
        /// A protocol's certificate cannot be kept in the data directory.
        case certificate(ForeignProtocol)
        /// The interfaces allowed have no IPv4 address, and both protocols speak IPv4.
        case noIPv4Address
    }

    public let code: Code
    public let message: String

    public var description: String { message }
}

/// Builds the services of the foreign protocols a ``ForeignSetup`` names, with the device's key.
public enum ForeignServices {
    /// The services `setup` asks for, as one ``ForeignPeers``; none when it asks for no protocol.
    public static func make(_ setup: ForeignSetup) throws(ForeignSetupError) -> ForeignPeers {
        let pins = ForeignPinStore(directory: setup.directory)
        guard setup.speaksLocalSend || setup.speaksKDEConnect else { return ForeignPeers([], pins: pins) }
        let context = try Context(setup)
        var services: [any ForeignPeerService & Service] = []
        if setup.speaksLocalSend { services.append(try localSend(setup, context)) }
        if setup.speaksKDEConnect { services.append(try kdeConnect(setup, context)) }
        return ForeignPeers(services, pins: pins)
    }

    /// KDE Connect alone: for `huddle clip sync`, which keeps paired devices' clipboards in step.
    public static func kdeConnectOnly(
        _ setup: ForeignSetup
    ) throws(ForeignSetupError) -> (
        KDEConnectService, ForeignPeers
    ) {
        let service = try kdeConnect(setup, try Context(setup))
        return (service, ForeignPeers([service], pins: ForeignPinStore(directory: setup.directory)))
    }

    /// What every foreign protocol needs: the device's key, and which interfaces it uses.
    struct Context {
        let identity: DeviceIdentity
        let pins: ForeignPinStore
        let usesInterface: @Sendable (String, Bool, Bool) -> Bool
        /// Where their servers listen: every IPv4 address, or only those of the interfaces allowed.
        let listenAddresses: [String]

        init(_ setup: ForeignSetup) throws(ForeignSetupError) {
            pins = ForeignPinStore(directory: setup.directory)
            do {
                // A pin file that cannot be read would make every pinned device look new: nothing starts.
                _ = try pins.load()
            } catch {
                throw ForeignSetupError(code: .pinsUnreadable, message: "\(error)")
            }
            do {
                identity = try DeviceIdentity.loadOrCreate(in: setup.directory)
            } catch {
                throw ForeignSetupError(code: .identity, message: "\(error)")
            }
            let discovery = setup.discovery
            listenAddresses = ForeignListenAddresses.addresses(
                allowInterfaces: discovery.allowInterfaces,
                denyInterfaces: discovery.denyInterfaces,
                of: (try? ForeignListenAddresses.hostAddresses()) ?? []
            )
            guard !listenAddresses.isEmpty else {
                throw ForeignSetupError(
                    code: .noIPv4Address,
                    message:
                        "LocalSend and KDE Connect speak IPv4 and \(discovery.allowInterfaces.joined(separator: ", ")) "
                        + "has no IPv4 address to listen on"
                )
            }
            usesInterface = { name, isLoopback, isPointToPoint in
                discovery.exclusion(name: name, isLoopback: isLoopback, isPointToPoint: isPointToPoint) == nil
            }
        }
    }

    static func localSend(_ setup: ForeignSetup, _ context: Context) throws(ForeignSetupError) -> LocalSendService {
        var configuration = LocalSendConfiguration(alias: setup.displayName)
        configuration.logger = setup.logger
        configuration.takesOffers = setup.takesOffers
        configuration.share = setup.share
        configuration.pacing = setup.pacing
        configuration.allowsPlainHTTP = setup.allowsPlainHTTP
        configuration.probedHosts = setup.peerHosts
        if let port = setup.localSendPort { configuration.port = port }
        if setup.discovery.families == [.v6] { configuration.usesMulticast = false }  // LocalSend multicasts on IPv4
        configuration.usesInterface = context.usesInterface
        configuration.listenAddresses = context.listenAddresses
        let certificate = try keptCertificate(.localSend, setup, context) {
            try DistinguishedName { CommonName("Huddle") }
        }
        let credentials = LocalSendCredentials(certificateDER: certificate, privateKey: context.identity.privateKey)
        do {
            return try LocalSendService(configuration: configuration, credentials: credentials)
        } catch {
            throw ForeignSetupError(code: .certificate(.localSend), message: "LocalSend: \(error)")
        }
    }

    /// KDE Connect with the device's key, its device ID from that key, and a certificate kept for it.
    static func kdeConnect(_ setup: ForeignSetup, _ context: Context) throws(ForeignSetupError) -> KDEConnectService {
        let deviceId = KDEConnectCredentials.deviceID(for: context.identity.privateKey.publicKey)
        let certificate = try keptCertificate(.kdeConnect, setup, context) {
            try DistinguishedName {
                OrganizationName("KDE")
                OrganizationalUnitName("Kde connect")
                CommonName(deviceId)
            }
        }
        var configuration = KDEConnectConfiguration(name: setup.displayName)
        configuration.pacing = setup.pacing
        configuration.takesOffers = setup.takesOffers
        configuration.usesInterface = context.usesInterface
        configuration.listenAddresses = context.listenAddresses
        configuration.announces = setup.discovery.families != [.v6]  // KDE Connect announces on IPv4
        configuration.logger = setup.logger
        return KDEConnectService(
            configuration: configuration,
            credentials: .init(
                deviceId: deviceId,
                certificateDER: certificate,
                privateKey: context.identity.privateKey
            ),
            pins: context.pins
        )
    }

    /// The certificate kept for `proto` in the data directory, issued for the device's key the first time.
    static func keptCertificate(
        _ proto: ForeignProtocol,
        _ setup: ForeignSetup,
        _ context: Context,
        subject: () throws -> DistinguishedName
    ) throws(ForeignSetupError) -> [UInt8] {
        let file = proto.key
        do {
            return try ForeignCertificate.loadOrIssue(
                file,
                subject: try subject(),
                key: context.identity.privateKey,
                in: setup.directory
            )
        } catch {
            throw ForeignSetupError(
                code: .certificate(proto),
                message: "\(proto.rawValue): the certificate cannot be kept in \(setup.directory.path): \(error)"
            )
        }
    }
}
