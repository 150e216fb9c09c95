public import HuddleWire

extension TrustStore {
    /// Most addresses kept per device.
    public static let rememberedAddressLimit = 2

    /// Notes that pinned device `id` was reached at `address` (`host:port`).
    ///
    /// An address this side dialled (`displacing`, the default) was proved by TLS to be the device's: it goes
    /// first, and the oldest beyond ``rememberedAddressLimit`` is dropped. An address learnt from a connection
    /// the device made (its source, with the port its unauthenticated advert names) proves less: a relay on the
    /// path has its own address there. It is only added while there is room, after the others, and never
    /// displaces one (`docs/threat-model.md`, "Direct addresses"). Nothing is written when nothing changes, or for
    /// a device that is not pinned.
    public func remember(address: String, for id: DeviceID, displacing: Bool = true) throws {
        guard let record = record(for: id), record.trust != .blocked,
            let kept = Self.remembered(address, in: record.addresses ?? [], displacing: displacing),
            kept != record.addresses
        else { return }
        try change { records in
            guard var record = records[id], record.trust != .blocked else { return }
            record.addresses = Self.remembered(address, in: record.addresses ?? [], displacing: displacing)
            records[id] = record
        }
    }

    /// The addresses kept after `address` is remembered in `addresses`, most trusted first; nil for none.
    static func remembered(_ address: String, in addresses: [String], displacing: Bool) -> [String]? {
        guard displacing else {
            guard !addresses.contains(address), addresses.count < rememberedAddressLimit else {
                return addresses.isEmpty ? nil : addresses
            }
            return addresses + [address]
        }
        return Array(([address] + addresses.filter { $0 != address }).prefix(rememberedAddressLimit))
    }
}
