import HuddleTransport
import HuddleWire
import Logging
import NIOCore

extension PeerSession {
    /// Keeps where `device` was reached on connection `id` in the trust store (`docs/design.md`, "Peers beyond
    /// the link"). A link-local IPv6 address is not kept: it means nothing without its interface.
    func rememberAddress(of device: DeviceID, on id: ConnectionID, listeningPort: Int?) {
        guard let remote = io[id]?.remote, let port = listeningPort ?? remote.port,
            let host = Self.rememberedHost(remote)
        else { return }
        do {
            // A peer that dialled proves its source address, not that it listens there (`listeningPort` is its
            // advert's): kept without displacing an address this side dialled.
            try trustStore.remember(
                address: PeerAddress(host: host, port: port).description,
                for: device,
                displacing: listeningPort == nil
            )
        } catch {
            configuration.logger.error(
                "could not write the trust store",
                metadata: ["device": "\(device)", "error": "\(error)"]
            )
        }
    }

    /// The address to keep for `remote`: IPv4 as it is (also when it came as IPv4-mapped IPv6), IPv6 unless it is
    /// link-local.
    static func rememberedHost(_ remote: SocketAddress) -> String? {
        guard let text = remote.ipAddress else { return nil }
        let lower = text.lowercased()
        if lower.hasPrefix("::ffff:"), !lower.dropFirst(7).contains(":") { return String(text.dropFirst(7)) }
        if lower.hasPrefix("fe80:") { return nil }
        return text
    }

    /// The addresses kept for paired devices, to look at while they are not found nearby.
    func rememberedAddresses() -> [DirectPeers.Entry] {
        trustStore.records.flatMap { record -> [DirectPeers.Entry] in
            guard record.trust != .blocked, let device = try? DeviceID(record.deviceID) else { return [] }
            return (record.addresses ?? []).compactMap { text in
                (try? PeerAddress(parsing: text)).map {
                    DirectPeers.Entry(address: $0, expected: device, source: .remembered)
                }
            }
        }
    }
}
