import ArgumentParser
import Huddle
import HuddleDoctor

/// `huddle doctor`: why the other device does not show up, and what to do about it.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Explain why peers are not found, and how to fix it.",
        discussion: """
            It checks what a session with the same --interface, --deny-interface, --ipv4 and --ipv6 would meet:

            - Interfaces: which ones the session would use, and why it leaves each other one out.
            - Multicast: it asks on each used interface (mDNS, RFC 6762) and listens for --timeout seconds, then \
            tells how many devices answered, and from which addresses.
            - Packet filter: nftables, iptables and ip6tables rules that drop mDNS (UDP 5353), the session's \
            port (--port, default 47474; TCP, and UDP for its datagrams), or the ports of LocalSend (TCP and UDP 53317, TCP 53318 for \
            huddle share) and KDE Connect (UDP and TCP 1716, TCP 1739 for files), named by table, chain and \
            handle, each with its fix. Reading them needs root.
            - Port 5353: which other programs hold it (Avahi). Huddle shares the port with them; both answer.
            - Isolation: no answer although other hosts are there (neighbour table, default route), as on guest \
            Wi-Fi or behind an access point with client isolation.

            Each finding has a code, a severity (error, warning, info), a message and the fix: a command to \
            run (firewall-cmd, ufw, nft, iptables) or a step to take. When multicast cannot get through, \
            connect directly with --peer HOST[:PORT].

            Exit status: 0 when nothing is wrong (info findings only), 3 when a problem was found, 64 for \
            a bad command line.

            --json prints one JSON object: {"ok", "interfaces": [{"name", "used", "excluded", "reason", \
            "addresses"}], "multicast": {"questions", "seconds", "interfaces": [{"interface", "families", \
            "responses", "answered", "devices": [{"addresses", "advertised", "thisHost"}]}]}, "port5353", \
            "firewall": [{"tool", "status"}], "findings": [{"code", "severity", "message", "fix", \
            "interfaces", "rule": {"tool", "family", "table", "chain", "handle", "text"}}]}.

            Examples:
              huddle doctor                          check everything
              sudo huddle doctor                     also read the packet filter rules
              huddle doctor --interface wlan0 --port 5454
              huddle doctor --json | jq '.findings[].fix'
            """
    )

    @Flag(help: "Print one JSON object instead of the text report.")
    var json = false

    @Option(help: ArgumentHelp("Listen this many seconds for answers on each interface.", valueName: "seconds"))
    var timeout: Double = 2

    @Option(
        help: ArgumentHelp(
            "Also ask for this session's service type (huddle chat and peers use TypingTogether).",
            valueName: "id"
        )
    )
    var session = "TypingTogether"

    @Option(
        help: ArgumentHelp(
            "The port the session is given with --port, to check the packet filter for it, TCP and UDP (default: "
                + "47474, the session's own default).",
            valueName: "port"
        )
    )
    var port: Int?

    @OptionGroup var network: NetworkOptions

    func validate() throws {
        if !(self.timeout > 0 && self.timeout <= 60) {
            throw ValidationError("--timeout takes a number of seconds above 0, at most 60")
        }
        if let port, !(1...65535).contains(port) { throw ValidationError("--port takes 1 to 65535") }
    }

    func run() async throws {
        let report = await DoctorCheck(
            configuration: self.network.configuration(),
            sessionID: self.session,
            sessionPort: UInt16(self.port ?? PeerAddress.defaultPort),
            listenSeconds: self.timeout
        ).run()
        if self.json {
            Output.json(report)
        } else {
            for line in report.textLines { Output.line(line) }
        }
        if report.hasProblems { throw ExitCode.problemsFound }
    }
}
