import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleDiscovery
import HuddleWideArea
import Logging

/// Options shared by the session commands (`chat`, `peers`): which session, under which name, with which identity.
struct SessionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The session ID: programs with the same ID meet, others never do (default: TypingTogether; "
                + "HuddleClipboard for the clip commands).",
            valueName: "id"
        )
    )
    var session: String?

    /// The session to join: --session, else the command's own default.
    func sessionID(default fallback: String = "TypingTogether") -> String { session ?? fallback }

    @Option(help: "The name others see (default: this host's name).")
    var name: String?

    @OptionGroup var data: DataDirectoryOption

    @Flag(
        help: ArgumentHelp(
            "Accept every connection request without asking. For scripts: nobody compares codes, so a first "
                + "contact is pinned as trust-on-first-use (not verified) and a man in the middle then goes unnoticed. "
                + "A new device with the name of a paired one is still asked about, with a warning."
        )
    )
    var yes = false

    @Flag(
        name: .customLong("trust-on-first-use"),
        help: ArgumentHelp(
            "Accept first contacts without comparing codes and pin them as unverified (TOFU). For headless use. "
                + "A new device with the name of a paired one is still asked about, with a warning."
        )
    )
    var trustOnFirstUse = false

    @Option(help: ArgumentHelp("Host label to announce as <label>.local.", valueName: "label"))
    var host: String?

    @Option(
        help: ArgumentHelp(
            "TCP port to accept connections on, and UDP port of datagrams (default: \(PeerAddress.defaultPort), or any "
                + "free port when another program has it; 0: any). Open it in a firewall to let peers reach this one.",
            valueName: "port"
        )
    )
    var port: Int?

    @Option(help: "Advertise KEY=VALUE beside the name, as a game's lobby (players=2); repeat for more; see peers.")
    var lobby: [String] = []

    @Option(
        name: .customLong("peer"),
        help: ArgumentHelp(
            "Also look for a peer at this address, for when it is not found nearby (another subnet, a network that "
                + "drops multicast): HOST, HOST:PORT or [IPv6]:PORT; the port defaults to "
                + "\(PeerAddress.defaultPort). Repeat for several. Only where to dial: the peer's key, pinned or "
                + "checked with the code, decides who it is.",
            valueName: "host[:port]"
        )
    )
    var peerAddressTexts: [String] = []

    @Option(
        help: ArgumentHelp(
            "Also register in and browse this wide-area DNS-SD domain (RFC 6763 §11) on a unicast DNS server, "
                + "beside multicast DNS nearby. Registering needs --tsig-key.",
            valueName: "domain"
        )
    )
    var domain: String?

    @Option(
        name: .customLong("dns-server"),
        help: ArgumentHelp(
            "The DNS server of --domain: ADDRESS or ADDRESS:PORT (default: the first nameserver in "
                + "/etc/resolv.conf).",
            valueName: "address"
        )
    )
    var dnsServer: String?

    @Option(
        name: .customLong("tsig-key"),
        help: ArgumentHelp(
            "A TSIG key file (BIND's format, as tsig-keygen writes it; hmac-sha256) that lets this host register "
                + "in --domain by DNS UPDATE. Yours, mode 600: no one else may read it.",
            valueName: "file"
        )
    )
    var tsigKey: String?

    @Option(
        name: .customLong("disconnect-timeout"),
        help: ArgumentHelp("Report a silent peer disconnected after this many seconds.", valueName: "seconds")
    )
    var disconnectTimeout: Double = 15

    @Option(
        name: .customLong("limit-rate"),
        help: ArgumentHelp("Send and receive files at most this fast, each way: 500K, 2M (K = 1024 bytes a second).")
    )
    var limitRate: String?

    @OptionGroup var network: NetworkOptions

    /// The session settings given (``SessionSetup``) but the wide-area ones, which read files (``setup()``).
    var localSetup: SessionSetup {
        var setup = SessionSetup()
        (setup.name, setup.sessionID, setup.port, setup.peerAddresses) = (name, session, port, peerAddressTexts)
        (setup.disconnectTimeout, setup.limitRate, setup.lobby) = (disconnectTimeout, limitRate, lobby)
        // Nobody compares a code under --yes either: such pins are trust-on-first-use, never "verified".
        setup.trustsOnFirstUse = trustOnFirstUse || yes
        setup.dataDirectory = data.url
        // What the session cannot report as an event (a trust store it could not write) goes to standard error,
        // escaped: a message may carry a peer's words.
        var logger = Logger(label: "huddle", factory: { _ in EscapingLogHandler() })
        logger.logLevel = .warning
        setup.logger = logger
        return setup
    }

    /// Every session setting given, `--domain` and its companions included: reads `--tsig-key` and
    /// `/etc/resolv.conf` when `--domain` is given, so a command takes it once.
    /// - Throws: `ValidationError` naming the option that is wrong.
    func setup() throws -> SessionSetup {
        var setup = localSetup
        setup.wideArea = try wideAreaConfiguration()
        do {
            try setup.validate()
        } catch {
            throw ValidationError("--\(error)")
        }
        return setup
    }

    var displayName: String { localSetup.displayName(hostName: ProcessInfo.processInfo.hostName) }

    func validate() throws { _ = try setup() }

    /// Starts a session on multicast DNS with these options.
    func startSession(
        mode: PeerSessionMode,
        defaultSession: String = "TypingTogether",
        adjust: (inout PeerSessionConfiguration) -> Void = { _ in }
    ) async throws -> PeerSession {
        if !peerAddressTexts.isEmpty && mode == .server {
            throw ValidationError("--peer needs a mode that looks for peers (client or peer), not server")
        }
        if yes || trustOnFirstUse {
            Output.error("warning: accepting without comparing codes; use only on a network you trust")
        }
        // From here the command answers peers: Ctrl-C or SIGTERM must end it with goodbyes, even before its
        // service group runs.
        ShutdownSignals.catchSignals()
        let setup = try setup()
        let discovery = network.configuration(hostLabel: host)
        return try await CommandFailure.run {
            try await setup.startSession(
                mode: mode,
                defaultSessionID: defaultSession,
                discovery: discovery,
                adjust: adjust
            )
        }
    }
}

extension SessionOptions {
    /// The wide-area domain of `--domain`, `--dns-server` and `--tsig-key` (``WideAreaSetup``), or nil without
    /// `--domain`.
    func wideAreaConfiguration() throws -> WideAreaConfiguration? {
        do { return try WideAreaSetup.given(domain: domain, server: dnsServer, keyFile: tsigKey) } catch {
            throw ValidationError("--\(error)")
        }
    }
}
