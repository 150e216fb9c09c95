import ArgumentParser
import HuddleApp
import HuddleDNS
import HuddleDiscovery
import HuddleMDNSCore

struct DiscoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover",
        abstract: "Browse for services and resolve them, live (like avahi-browse -r or dns-sd -B).",
        discussion: """
            With a TYPE such as _http._tcp (or a subtype, _printer._sub._http._tcp), prints each instance as it \
            appears (+), changes (~) or leaves (-), with host, port, addresses and TXT. Without a TYPE, lists the \
            service types on the network. Runs until interrupted, or for --timeout seconds.

            --json prints one JSON object per line: {"event":"added"|"updated"|"removed", "name", "type", \
            "domain", "host", "port", "addresses", "txt", "interface"}, or {"event":"type","type":…} when \
            listing types.
            """
    )

    @Argument(help: ArgumentHelp("The service type to browse, e.g. _http._tcp.", valueName: "type"))
    var type: String?

    @Flag(help: "Print one JSON object per line instead of a table.")
    var json = false

    @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
    var timeout: Double?

    @Option(help: ArgumentHelp("Stop after this many instances (or types) were found.", valueName: "n"))
    var count: Int?

    @OptionGroup var network: NetworkOptions

    func validate() throws {
        if let type {
            do {
                _ = try MDNSServiceType(parsing: type, strict: false)
            } catch let error as MDNSError {
                throw ValidationError(error.message)
            }
        }
        if let timeout, !(timeout > 0) { throw ValidationError("--timeout must be a positive number of seconds") }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
    }

    func run() async throws {
        let stack: MDNSStack
        do {
            stack = try await MDNSStack.start(configuration: self.network.configuration())
        } catch let error as MDNSError {
            Output.error(error.message)
            throw ExitCode.unavailable
        }
        let names = Dictionary(await stack.interfaces.map { ($0.index, $0.name) }, uniquingKeysWith: { a, _ in a })
        let table = ServiceTable(interfaceNames: names)
        let events: AsyncStream<MDNSBrowseEvent>
        if let type {
            events = stack.browse(try MDNSServiceType(parsing: type, strict: false))
        } else {
            events = stack.browseServiceTypes()
        }
        if !self.json {
            let interfaceList = names.values.sorted().joined(separator: ", ")
            Output.line("Browsing \(self.type ?? "service types") on \(interfaceList) (Ctrl-C to stop)")
            if self.type != nil { Output.line(ServiceTable.header) }
        }
        let limit = self.count
        let json = self.json
        let timeout = self.timeout
        // Until --count, --timeout or Ctrl-C.
        _ = try await CommandServices.run([stack]) {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    var found = 0
                    for await event in events {
                        if Self.print(event, table: table, json: json) { found += 1 }
                        if let limit, found >= limit { return }
                    }
                }
                if let timeout {
                    group.addTask { try? await Task.sleep(for: .seconds(timeout)) }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Prints one event; returns whether it counts towards --count (a new instance or type).
    static func print(_ event: MDNSBrowseEvent, table: ServiceTable, json: Bool) -> Bool {
        let entry = table.entry(for: event)
        json ? Output.json(entry.record) : Output.line(entry.line)
        return entry.isNew
    }
}
