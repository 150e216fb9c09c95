import NIOCore
import NIOPosix

/// Where the foreign protocols' servers listen (docs/threat-model.md, "Foreign peers"): every IPv4 address of the
/// host, unless the command is told to use only some interfaces (`--interface`), then only their IPv4 addresses.
///
/// LocalSend and KDE Connect speak IPv4 only. Their UDP sockets stay on 0.0.0.0, since a socket bound to one
/// address hears no multicast or broadcast; ``ForeignAnnouncementRule`` drops what comes in on other interfaces.
public enum ForeignListenAddresses {
    /// Every address: the default.
    public static let any = ["0.0.0.0"]

    /// The addresses to listen on.
    /// - Parameters:
    ///   - allowInterfaces: the interfaces `--interface` names; empty: all.
    ///   - denyInterfaces: the interfaces `--deny-interface` names, left out even when also allowed.
    ///   - addresses: each IPv4 address of the host with its interface's name.
    /// - Returns: ``any`` when no interface is named; otherwise the named interfaces' addresses in the order
    ///   given, empty when they have none (then nothing can listen).
    public static func addresses(
        allowInterfaces: [String],
        denyInterfaces: [String],
        of addresses: [(interface: String, address: String)]
    ) -> [String] {
        guard !allowInterfaces.isEmpty else { return any }
        var chosen: [String] = []
        for entry in addresses
        where allowInterfaces.contains(entry.interface) && !denyInterfaces.contains(entry.interface)
            && !chosen.contains(entry.address)
        {
            chosen.append(entry.address)
        }
        return chosen
    }

    /// Each IPv4 address of this host with its interface's name.
    public static func hostAddresses() throws -> [(interface: String, address: String)] {
        try System.enumerateDevices().compactMap { device in
            guard case .v4 = device.address, let address = device.address?.ipAddress else { return nil }
            return (device.name, address)
        }
    }
}
