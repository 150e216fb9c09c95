import Foundation
import HuddleDiscovery

/// The reads `huddle doctor` makes of the system: programs it runs and files under `/proc`. Thin on purpose: what
/// they return is judged by the pure types (``NftablesRuleset``, ``IptablesRuleset``, ``LinkEvidence``).
enum DoctorProbes {
    typealias Run = ProgramRun

    /// The system's directories of programs, searched before `PATH`: under `sudo -E huddle doctor` the user's
    /// `PATH` comes along, and a directory of theirs in it must not supply the `nft` that runs as root.
    static let systemDirectories = ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]

    /// Where a program is: in the system's directories, else on `PATH`, else in `/usr/local/sbin`.
    static func locate(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return searchOrder(path: path).map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// The directories ``locate(_:)`` searches, in order, for `path` (the value of `PATH`): the system's first,
    /// then `PATH`'s absolute directories (a relative one, or an empty one, means the working directory), then
    /// `/usr/local/sbin`, each once.
    static func searchOrder(path: String) -> [String] {
        var order: [String] = []
        let fromPath = path.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        for directory in systemDirectories + fromPath + ["/usr/local/sbin"] where !order.contains(directory) {
            order.append(directory)
        }
        return order
    }

    /// Runs a program to its end, killed after `timeout`; nil when it could not be started.
    static func run(_ path: String, _ arguments: [String], timeout: Duration = .seconds(5)) async -> Run? {
        await ProgramRun.run(path, arguments, timeout: timeout)
    }

    /// The packet filter's rule sets, each with how reading it went. Tables that `iptables-nft` manages are read
    /// from `iptables-save` alone, though `nft` lists them too (with opaque `xt` matches).
    static func firewall() async -> (rulesets: [FilterRuleset], readings: [FirewallReading]) {
        var rulesets: [FilterRuleset] = []
        var readings: [FirewallReading] = []
        var iptablesTables = Set<String>()
        for source in [FilterSource.iptables, .ip6tables] {
            guard let path = Self.locate("\(source.rawValue)-save") else {
                readings.append(FirewallReading(tool: source.rawValue, status: .notInstalled))
                continue
            }
            let result = await Self.run(path, [])
            guard let run = result, run.status == 0 else {
                let reason = Self.failure(result, name: "\(source.rawValue)-save")
                readings.append(FirewallReading(tool: source.rawValue, status: .failed(reason)))
                continue
            }
            let ruleset = IptablesRuleset.parse(run.output, source: source)
            if IptablesRuleset.isNftablesVariant(run.output) {
                iptablesTables.formUnion(IptablesRuleset.tableNames(run.output, source: source))
            }
            rulesets.append(ruleset)
            readings.append(FirewallReading(tool: source.rawValue, status: .read(rules: ruleset.ruleCount)))
        }
        if let nft = Self.locate("nft") {
            let result = await Self.run(nft, ["-j", "list", "ruleset"])
            if let json = result, json.status == 0,
                let ruleset = NftablesRuleset.parse(
                    json: json.output,
                    listing: await Self.run(nft, ["-a", "list", "ruleset"])?.output ?? "",
                    skippingTables: iptablesTables
                )
            {
                rulesets.insert(ruleset, at: 0)
                readings.insert(FirewallReading(tool: "nftables", status: .read(rules: ruleset.ruleCount)), at: 0)
            } else {
                readings.insert(
                    FirewallReading(tool: "nftables", status: .failed(Self.failure(result, name: "nft"))),
                    at: 0
                )
            }
        } else {
            readings.insert(FirewallReading(tool: "nftables", status: .notInstalled), at: 0)
        }
        return (rulesets, readings)
    }

    /// Why a tool gave no rule set: the last line of its error output, or its exit status.
    private static func failure(_ run: Run?, name: String) -> String {
        guard let run else { return "\(name) could not be started" }
        guard run.status != 0 else { return "\(name) printed no rule set doctor can read" }
        let line = run.error.split(separator: "\n").last.map(String.init) ?? ""
        return line.isEmpty ? "\(name) exited with status \(run.status)" : line
    }

    /// Neighbours and default routes, from `ip neigh show` (or `/proc/net/arp`) and `/proc/net/route`,
    /// `/proc/net/ipv6_route`.
    static func linkEvidence() async -> LinkEvidence {
        var evidence = LinkEvidence()
        if let ip = Self.locate("ip"), let run = await Self.run(ip, ["neigh", "show"]), run.status == 0 {
            evidence.neighbours = LinkEvidence.neighbours(ipNeighShow: run.output)
        } else if let arp = MDNSPortSharing.readWhole("/proc/net/arp") {
            evidence.neighbours = LinkEvidence.neighbours(procNetARP: arp)
        }
        if let routes = MDNSPortSharing.readWhole("/proc/net/route") {
            evidence.defaultRouteInterfaces.formUnion(LinkEvidence.defaultRoutes(procNetRoute: routes))
        }
        if let routes = MDNSPortSharing.readWhole("/proc/net/ipv6_route") {
            evidence.defaultRouteInterfaces.formUnion(LinkEvidence.defaultRoutes(procNetIPv6Route: routes))
        }
        return evidence
    }
}

extension FilterRuleset {
    var ruleCount: Int { self.chains.reduce(0) { $0 + $1.rules.count } }
}
