import HuddleMDNSCore

/// A port Huddle's commands listen on besides the session's, whose packets `huddle doctor` asks the packet filter
/// about: LocalSend and KDE Connect, on by default in `send`, `receive` and `peers` (the README's table of ports).
struct ListeningPort: Hashable, Sendable {
    var transport: FilterPacket.Transport
    var port: UInt16
    /// What listens there, for the finding's message: "LocalSend's HTTPS server".
    var purpose: String
    /// The protocol's part of the finding's code: `localsend`, `kdeconnect`.
    var codeName: String

    /// LocalSend: its HTTPS server and announcements on 53317 (protocol v2.1, section 1), `huddle share`'s page on
    /// 53318. KDE Connect: identities and links on 1716 (the first of 1716–1764 free; the protocol's range is
    /// 1714–1764), payloads from 1739 (1739–1764).
    static let foreign: [ListeningPort] = [
        ListeningPort(transport: .tcp, port: 53317, purpose: "LocalSend's HTTPS server", codeName: "localsend"),
        ListeningPort(transport: .udp, port: 53317, purpose: "LocalSend announcements", codeName: "localsend"),
        ListeningPort(transport: .tcp, port: 53318, purpose: "huddle share's page", codeName: "localsend"),
        ListeningPort(transport: .udp, port: 1716, purpose: "KDE Connect identities", codeName: "kdeconnect"),
        ListeningPort(transport: .tcp, port: 1716, purpose: "KDE Connect links", codeName: "kdeconnect"),
        ListeningPort(transport: .tcp, port: 1739, purpose: "KDE Connect file payloads", codeName: "kdeconnect"),
    ]

    /// The first packet a peer sends there.
    func packet(family: MDNSFamily, interfaceName: String) -> FilterPacket {
        FilterPacket(
            transport: self.transport,
            family: family,
            interfaceName: interfaceName,
            sourcePort: nil,
            destinationPort: self.port,
            destinationAddress: nil,
            isMulticast: false
        )
    }
}
