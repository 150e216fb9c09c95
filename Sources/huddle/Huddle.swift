import ArgumentParser

@main
struct Huddle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "huddle",
        abstract: "Find nearby devices and share with them, with no daemon and no cloud.",
        discussion: """
            Huddle speaks multicast DNS and DNS-SD (RFC 6762, RFC 6763) on its own, beside Avahi or \
            mDNSResponder if they run, and interoperates with them.

            Examples:
              huddle discover                       list the service types on the network
              huddle discover _http._tcp            browse and resolve web servers, live
              huddle advertise "Kitchen" _lab._tcp 8080 room=kitchen
            """,
        subcommands: [DiscoverCommand.self, AdvertiseCommand.self, PasteboardCommand.self, URLCommand.self]
    )
}
