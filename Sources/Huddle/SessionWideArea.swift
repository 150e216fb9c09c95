import Foundation
import HuddleDNS
import HuddleMDNSCore
import HuddleWideArea
import HuddleWire

/// The session in a wide-area DNS-SD domain (`docs/design.md`, "Wide-area DNS-SD"): its registration by DNS
/// UPDATE signed with TSIG, and a poll of the domain whose instances become direct addresses (``DirectPeers``),
/// so that only the device a record names, answering at its address, is ever found. Runs on the session's
/// executor.
actor SessionWideArea {
    nonisolated let executorOwner: any Actor
    let dns: WideAreaDNS
    let clock: any SessionClock
    private var registration: ServiceRegistration?
    private var polling: Task<Void, Never>?

    init(configuration: WideAreaConfiguration, clock: any SessionClock, sharingExecutorOf executorOwner: any Actor) {
        self.dns = WideAreaDNS(configuration: configuration)
        self.clock = clock
        self.executorOwner = executorOwner
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executorOwner.unownedExecutor }

    var domain: DNSName { dns.configuration.domain }

    /// Registers `advert` at `hosts`, after taking out what an earlier run of this device left under another
    /// name. Without a key it registers nothing.
    func register(_ advert: PeerAdvert, hosts: [String]) async throws {
        guard dns.configuration.key != nil, registration == nil else { return }
        let label = DisplayText.sanitized(advert.displayName)
        let instance = String(decoding: Array("\(label) (\(advert.deviceID.shortID))".utf8.prefix(63)), as: UTF8.self)
        let registration = ServiceRegistration(
            instance: instance,
            serviceType: advert.serviceType,
            domain: domain,
            host: "huddle-\(advert.peer.rawValue)",
            port: UInt16(advert.port),
            txt: try MDNSPeerDirectory.txt(for: advert).strings,
            ipv4: hosts.compactMap { IPv4Address($0) },
            ipv6: hosts.compactMap { IPv6Address($0) }
        )
        try await removeStale(of: advert, keeping: try registration.instanceName)
        try await dns.send(try registration.registering(zone: domain), now: Self.now())
        self.registration = registration
    }

    /// Takes out this device's registrations under other instance names: a process that was killed leaves its
    /// records behind (BIND 9 has no update leases).
    private func removeStale(of advert: PeerAdvert, keeping current: DNSName) async throws {
        let service = try ServiceRegistration.name(advert.serviceType, in: domain)
        for instance in try await dns.browse(serviceType: advert.serviceType, in: domain)
        where instance.name != current && Self.device(of: instance) == advert.deviceID {
            let update = DNSUpdate(
                zone: domain,
                updates: [
                    DNSUpdate.delete(DNSRecord(name: service, data: .ptr(instance.name), ttl: 0)),
                    DNSUpdate.deleteAll(at: instance.name), DNSUpdate.deleteAll(at: instance.host),
                ]
            )
            try await dns.send(update, now: Self.now())
        }
    }

    /// Takes the registration out of the domain.
    func withdraw() async {
        guard let registration, let removal = try? registration.removing(zone: domain) else { return }
        self.registration = nil
        // In a task of its own: a session stopped by cancelling its task still takes its records out.
        let dns = self.dns
        await Task { try? await dns.send(removal, now: Self.now()) }.value
    }

    /// Polls the domains for instances of `serviceType` other than `own`, handing each address on to `found`.
    func startBrowsing(
        serviceType: String,
        own: PeerID,
        found: @escaping @Sendable (PeerAddress, DeviceID) async -> Void,
        failed: @escaping @Sendable (PeerSessionError) -> Void
    ) {
        guard polling == nil else { return }
        let (dns, clock) = (self.dns, self.clock)
        polling = Task {
            var lastFailure: String?
            while !Task.isCancelled {
                do {
                    for domain in await dns.browseDomains() {
                        for instance in try await dns.browse(serviceType: serviceType, in: domain) {
                            guard let device = Self.device(of: instance), Self.token(of: instance) != own.rawValue
                            else { continue }
                            for host in instance.addresses {
                                await found(PeerAddress(host: host, port: Int(instance.port)), device)
                            }
                        }
                    }
                    lastFailure = nil
                } catch {
                    if lastFailure != "\(error)" { failed(.wideArea("browsing \(dns.configuration.domain): \(error)")) }
                    lastFailure = "\(error)"
                }
                do {
                    try await clock.sleep(until: clock.now + dns.configuration.pollInterval)
                } catch {
                    return
                }
            }
        }
    }

    func stopBrowsing() {
        polling?.cancel()
        polling = nil
    }

    /// The device an instance's TXT `id` names (a hint: only the key at its address decides).
    static func device(of instance: WideAreaInstance) -> DeviceID? {
        value("id", in: instance).flatMap { try? DeviceID($0) }
    }

    static func token(of instance: WideAreaInstance) -> String? { value("in", in: instance) }

    static func value(_ key: String, in instance: WideAreaInstance) -> String? {
        let prefix = Array("\(key)=".utf8)
        guard let entry = instance.txt.first(where: { $0.starts(with: prefix) }) else { return nil }
        return String(decoding: entry.dropFirst(prefix.count), as: UTF8.self)
    }

    static func now() -> UInt64 { UInt64(Date().timeIntervalSince1970) }
}
