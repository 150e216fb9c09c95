public import HuddleWire

extension TrustStore {
    /// Most addresses kept per device.
    public static let rememberedAddressLimit = 2

    /// Notes that pinned device `id` was reached at `address` (`host:port`): it goes first, and the oldest beyond
    /// ``rememberedAddressLimit`` is dropped. Nothing is written when it is first already, or for a device that is
    /// not pinned.
    public func remember(address: String, for id: DeviceID) throws {
        guard let record = record(for: id), record.trust != .blocked, record.addresses?.first != address else {
            return
        }
        try change { records in
            guard var record = records[id], record.trust != .blocked else { return }
            var addresses = (record.addresses ?? []).filter { $0 != address }
            addresses.insert(address, at: 0)
            record.addresses = Array(addresses.prefix(Self.rememberedAddressLimit))
            records[id] = record
        }
    }
}
