import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleDaemon
import HuddleDiscovery
import HuddleMDNSCore
import HuddleQR
import HuddleTransport
import HuddleWire

/// `huddle pair`: issue a pairing link (and show it as a QR code), or use one.
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair two devices with a one-time link (and its QR code) instead of comparing codes.",
        discussion: """
            Without a link: prints a huddle:pair link for this device (its key's ID, its addresses and port, and \
            a one-time secret of 128 bits) and the same link as a QR code (--png FILE writes it as an image too), \
            waits until another device uses it, and exits. The link works once, \
            for --lifetime seconds (default 600). It is a secret: show it only to the device that should pair.

            With a link (huddle pair -, then paste the link): finds that device at the link's addresses, checks \
            that it has the key the link names, and pairs. Both devices then pin each other as verified; no code \
            is compared, because the secret proves the run, bound to both keys. A used or expired link is refused. \
            A link given as an argument works too, but other users of this machine can read it in the process \
            list while the command runs (and it stays in the shell's history): - reads it from standard input.

            A device behind a link that calls itself like a device paired before ("Bob" beside the paired Bob) \
            is not paired without a question: the first device asks, and the second refuses it.

            Examples:
              huddle pair                           on the first device
              huddle pair -                         on the second, then paste the link the first printed
              printf '%s\\n' "$LINK" | huddle pair -    the same from a script
            """
    )

    @Argument(
        help: ArgumentHelp(
            "A link `huddle pair` printed on the other device, or - to read it from standard input.",
            valueName: "link"
        )
    )
    var link: String?

    @Option(help: ArgumentHelp("How long the link works, in seconds (60 to 86400).", valueName: "seconds"))
    var lifetime: Int = 600

    @Option(
        name: .customLong("address"),
        help: ArgumentHelp(
            "An address to put in the link for the other device to dial (repeat for several). Default: this "
                + "host's addresses on the interfaces in use (not link-local IPv6).",
            valueName: "host"
        )
    )
    var addresses: [String] = []

    @Option(help: ArgumentHelp("Also write the link's QR code to this PNG file (mode 0600).", valueName: "file"))
    var png: String?

    @Flag(help: "Draw the QR code for a terminal with dark text on a light background (default: light on dark).")
    var lightTerminal = false

    @Flag(help: "Do not draw the QR code in the terminal (the link is printed all the same).")
    var noQr = false

    @Option(help: ArgumentHelp("How long to look for the link's device, in seconds.", valueName: "seconds"))
    var timeout: Double = 60

    @OptionGroup var options: SessionOptions

    func validate() throws {
        guard (60...86_400).contains(lifetime) else { throw ValidationError("--lifetime takes 60 to 86400 seconds") }
        guard timeout >= 1 && timeout <= 3600 else { throw ValidationError("--timeout takes 1 to 3600 seconds") }
        if let link, link != PairingLinkInput.standardInput {
            do {
                _ = try PairingLink(parsing: link)
            } catch let error as PeerSessionError {
                throw ValidationError(error.reason ?? "\(error)")
            }
        }
    }

    func run() async throws {
        if let link {
            let parsed: PairingLink
            do {
                parsed = try PairingLinkInput.read(link)
            } catch let error as PeerSessionError {
                Output.error(error.reason ?? "\(error)")
                throw ExitCode.dataError
            }
            try await use(parsed)
        } else {
            try await issue()
        }
    }

    /// Prints a link and waits until it is used or expires.
    func issue() async throws {
        let hosts = try addresses.isEmpty ? HostAddresses.current(options.network.configuration()) : addresses
        guard !hosts.isEmpty else {
            Output.error("no address to put in the link: no interface in use has one; name one with --address")
            throw ExitCode.unavailable
        }
        if let daemon = await DaemonRoute.client(options.data) {
            var request = ControlRequest(.issuePairingLink)
            (request.hosts, request.lifetimeSeconds) = (hosts, lifetime)
            return try await DaemonRoute.run(daemon, request) { link in _ = show(link) }
        }
        let session = try await options.startSession(mode: .peer)
        let lifetime = Duration.seconds(lifetime)
        let link = try await session.issuePairingLink(lifetime: lifetime, hosts: hosts)
        let wait = PairingLinkWait(session: session, events: session.events, seconds: self.lifetime)
        Output.line(wait.heading)
        guard show(link.description) else {
            await session.stop()
            throw ExitCode.ioError
        }
        let (yes, prompter) = (options.yes, Prompter.standard)
        let paired = try await CommandServices.run([session]) {
            try await wait.paired { request in
                Task {
                    let accept = await request.answer(request.linkQuestion, autoAccept: yes, prompter: prompter)
                    if accept { await session.accept(request) } else { await session.deny(request) }
                }
            }
        }
        guard let outcome = paired else { throw ExitCode.interrupted }
        guard let line = outcome else {
            Output.error("the link expired unused")
            throw ExitCode.temporaryFailure
        }
        Output.line(line)
    }

    /// Prints the link, its QR code (and the PNG file) and what to do with it; false when the code could not be
    /// written (said).
    func show(_ link: String) -> Bool {
        Output.line(link)
        do {
            let code = try QRCode(encoding: link)
            if !noQr {
                for line in code.terminalText(inverted: lightTerminal).split(separator: "\n") {
                    Output.line(String(line))
                }
            }
            if let png {
                try AtomicFile.write(code.png(), to: URL(fileURLWithPath: png), mode: 0o600)
                Output.line("(QR code written to \(png))")
            }
        } catch {
            Output.error("could not write the QR code: \(error)")
            return false
        }
        Output.line("On the other device: huddle pair - and paste the link (or scan the code)")
        Output.line("Waiting for it to be used. Ctrl-C to stop.")
        return true
    }

    /// Finds the link's device and pairs with it.
    func use(_ link: PairingLink) async throws {
        guard !link.hasExpired() else {
            Output.error("this pairing link has expired; ask for a new one (huddle pair on the other device)")
            throw ExitCode.temporaryFailure
        }
        if let daemon = await DaemonRoute.client(options.data) {
            var request = ControlRequest(.pair)
            (request.link, request.waitSeconds) = (link.description, timeout)
            return try await DaemonRoute.run(daemon, request)
        }
        let session = try await options.startSession(mode: .peer)
        let who =
            link.name.isEmpty ? link.device.shortID : "\(DisplayText.sanitized(link.name)) (\(link.device.shortID))"
        Output.line("Looking for \(who) at \(link.addresses.map(\.description).joined(separator: ", "))…")
        let timeout = Duration.seconds(self.timeout)
        let result = try await CommandServices.run([session]) {
            try await CommandFailure.run { try await session.pair(using: link, timeout: timeout) }
        }
        guard let peer = result else { throw ExitCode.interrupted }
        let name = await session.displayName(for: peer) ?? peer.rawValue
        Output.line(PairingLinkWait.pairedLine(name: name, device: link.device))
    }
}
