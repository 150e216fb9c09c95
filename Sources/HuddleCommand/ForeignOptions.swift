import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleForeign
import HuddleKDEConnect
import HuddleLocalSend

/// Options of the commands that also speak other protocols (`send`, `receive`, `peers`, `share`): LocalSend and
/// KDE Connect.
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

    /// The foreign protocols' services for a command run by `options`; none with --no-localsend --no-kdeconnect.
    /// With the `session` started beside them, their transfers count against its limits (one --limit-rate for all).
    func services(
        options: SessionOptions,
        beside session: PeerSession? = nil,
        takesOffers: Bool,
        share: LocalSendShareConfiguration? = nil
    ) throws -> ForeignPeers {
        var setup = Self.setup(options)
        if let session { setup.pacing = session.transferPacers }
        setup.speaksLocalSend = !noLocalSend
        setup.speaksKDEConnect = !noKDEConnect
        setup.takesOffers = takesOffers
        setup.share = share
        setup.allowsPlainHTTP = allowPlainHTTP
        setup.localSendPort = localSendPort
        return try Self.started { () throws(ForeignSetupError) in try ForeignServices.make(setup) }
    }

    /// KDE Connect alone, taking no offers: for `huddle clip sync`, which keeps paired devices' clipboards in step.
    static func kdeConnectForClipboard(options: SessionOptions) throws -> (KDEConnectService, ForeignPeers) {
        let setup = setup(options)
        return try started { () throws(ForeignSetupError) in try ForeignServices.kdeConnectOnly(setup) }
    }

    static func setup(_ options: SessionOptions) -> ForeignSetup {
        // Only where files go and how to log: the wide-area settings are the session's, not read here.
        let session = options.localSetup.configuration()
        var setup = ForeignSetup(
            displayName: options.displayName,
            directory: session.dataDirectory,
            discovery: options.network.configuration()
        )
        setup.logger = session.logger  // standard error, escaped, warnings and worse
        setup.peerHosts = (try? options.localSetup.addresses())?.map(\.host) ?? []
        setup.pacing = TransferPacers(rate: try? options.localSetup.rateLimits().sending)
        return setup
    }

    /// Runs `make`; when the protocols cannot start, says why and what leaves them out, and fails.
    static func started<T>(_ make: () throws(ForeignSetupError) -> T) throws -> T {
        do {
            return try make()
        } catch {
            switch error.code {
            case .noIPv4Address:
                Output.error("\(error.message): --no-localsend --no-kdeconnect leaves them out")
            case .pinsUnreadable, .identity:
                Output.error("LocalSend and KDE Connect: \(error.message)")
            case .certificate:
                Output.error(error.message)
            }
            throw ExitCode.failure
        }
    }
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
}
