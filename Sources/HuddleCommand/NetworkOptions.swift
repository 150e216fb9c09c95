import ArgumentParser
import HuddleDiscovery
import HuddleMDNSCore

/// Options shared by the discovery commands: which interfaces and families to use.
struct NetworkOptions: ParsableArguments {
    @Option(
        name: .customLong("interface"),
        help: ArgumentHelp(
            "Use only this interface (repeat for several). By default every multicast interface is used except "
                + "loopback, point-to-point and container/VM/VPN ones (docker*, veth*, virbr*, tun*, wg*, …).",
            valueName: "name"
        )
    )
    var interfaces: [String] = []

    @Option(name: .customLong("deny-interface"), help: ArgumentHelp("Never use this interface.", valueName: "name"))
    var deniedInterfaces: [String] = []

    @Flag(name: .customLong("ipv4"), help: "Use IPv4 only.")
    var ipv4Only = false

    @Flag(name: .customLong("ipv6"), help: "Use IPv6 only.")
    var ipv6Only = false

    func validate() throws {
        if self.ipv4Only && self.ipv6Only { throw ValidationError("--ipv4 and --ipv6 exclude each other") }
    }

    func configuration(hostLabel: String? = nil) -> DiscoveryConfiguration {
        var configuration = DiscoveryConfiguration()
        configuration.allowInterfaces = self.interfaces
        configuration.denyInterfaces = self.deniedInterfaces
        if self.ipv4Only { configuration.families = [.v4] }
        if self.ipv6Only { configuration.families = [.v6] }
        configuration.hostLabel = hostLabel
        return configuration
    }
}
