import ArgumentParser
import Foundation
import HuddleApp
import HuddleDNS
import HuddleDiscovery
import HuddleMDNSCore
import ServiceLifecycle

struct AdvertiseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "advertise",
        abstract: "Advertise a service until interrupted (like avahi-publish -s or dns-sd -R).",
        discussion: """
            Probes for NAME, announces it, answers queries, and on a name conflict renames to "NAME (2)", \
            "NAME (3)", … and says so. Ctrl-C or SIGTERM withdraws it with goodbye packets.

            NAME is any UTF-8 text up to 63 bytes (spaces, dots and non-Latin scripts are fine). TYPE is \
            _name._tcp or _name._udp with a valid RFC 6335 service name (1–15 letters, digits, hyphens). TXT \
            entries are key=value, or a bare key for a boolean attribute.

            --json prints {"event":"registered"|"renamed"|"hostRenamed", …} lines. With --control, commands are \
            read from standard input: "txt k=v …" replaces the TXT data, "port N" changes the port, "quit" stops.
            """
    )

    @Argument(help: "The instance name, e.g. \"Kitchen Printer\".")
    var name: String

    @Argument(help: ArgumentHelp("The service type, e.g. _ipp._tcp.", valueName: "type"))
    var type: String

    @Argument(help: "The port the service listens on.")
    var port: UInt16

    @Argument(help: ArgumentHelp("TXT entries: key=value, or key alone.", valueName: "key=value"))
    var txt: [String] = []

    @Option(
        name: .customLong("subtype"),
        help: ArgumentHelp("Also advertise under a subtype, e.g. _printer.", valueName: "sub")
    )
    var subtypes: [String] = []

    @Option(
        help: ArgumentHelp("Host label to announce as <label>.local (default: <hostname>-huddle).", valueName: "label")
    )
    var host: String?

    @Flag(help: "Print one JSON object per line.")
    var json = false

    @Flag(help: "Read commands (txt k=v …, port N, quit) from standard input.")
    var control = false

    @OptionGroup var network: NetworkOptions

    func registration() throws -> MDNSServiceRegistration {
        do {
            return try .given(name: name, type: type, port: port, txt: txt, subtypes: subtypes)
        } catch {
            throw ValidationError(error.message)
        }
    }

    func validate() throws {
        _ = try self.registration()
        if let host, host.isEmpty || host.contains(".") || host.utf8.count > 63 {
            throw ValidationError("--host takes a single label of 1 to 63 bytes, without dots")
        }
    }

    func run() async throws {
        let registration = try self.registration()
        let stack: MDNSStack
        do {
            stack = try await MDNSStack.start(configuration: self.network.configuration(hostLabel: self.host))
        } catch let error as MDNSError {
            Output.error(error.message)
            throw ExitCode.unavailable
        }
        let handle = try await stack.register(registration)
        let hostName = await stack.hostName.hostText
        let json = self.json
        let text = AdvertisedEventText(
            type: registration.type.description,
            port: Int(registration.port),
            host: hostName
        )
        let control = self.control
        // Until Ctrl-C or SIGTERM (or "quit"); the stack then withdraws the service with goodbye packets.
        _ = try await CommandServices.run([stack]) {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in handle.events {
                        json ? Output.json(text.record(event)) : Output.line(text.line(event))
                    }
                }
                if control {
                    group.addTask { await Self.readCommands(stack: stack, id: handle.id, json: json) }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Reads control commands from standard input until `quit` or end of input.
    static func readCommands(stack: MDNSStack, id: MDNSServiceID, json: Bool) async {
        let lines = InputLines.stream().map(\.text)
        guard await !ServiceControl.follow(lines, stack: stack, id: id, error: { Output.error($0) }) else { return }
        // End of input: keep advertising until a signal arrives (the command's service group then cancels this).
        try? await gracefulShutdown()
    }
}
