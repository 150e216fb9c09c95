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
    /// The direct addresses the polls gave; kept across a stop and a start of browsing, as ``DirectPeers`` keeps
    /// its entries.
    private var addresses: WideAreaAddresses
    /// Whether the last poll found more than ``WideAreaAddresses/Configuration/limit`` addresses (told once).
    private var refusing = false

    init(
        configuration: WideAreaConfiguration,
        addressBounds: WideAreaAddresses.Configuration = .init(),
        clock: any SessionClock,
        exchange: (any DNSExchange)? = nil,
        sharingExecutorOf executorOwner: any Actor
    ) {
        self.dns = WideAreaDNS(configuration: configuration, exchange: exchange)
        self.addresses = WideAreaAddresses(configuration: addressBounds)
        self.clock = clock
        self.executorOwner = executorOwner
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executorOwner.unownedExecutor }

    var domain: DNSName { dns.configuration.domain }

    /// Registers `advert` at `hosts`, after taking out what an earlier run of this device left under another
    /// name. Without a key it registers nothing.
    func register(_ advert: PeerAdvert, hosts: [String]) async throws {
        guard dns.configuration.key != nil, registration == nil else { return }
        let registration = ServiceRegistration(
            instance: WideAreaNames.instanceLabel(displayName: advert.displayName, device: advert.deviceID),
            serviceType: advert.serviceType,
            domain: domain,
            host: WideAreaNames.hostLabel(peer: advert.peer),
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
    /// records behind (BIND 9 has no update leases). Only names of this device's own form, and only if the server
    /// still holds what the browse said (``WideAreaNames/staleRemoval(of:device:serviceType:domain:)``); an
    /// UPDATE whose prerequisite fails (RFC 2136 §3.2.5) leaves the zone alone and is passed over.
    private func removeStale(of advert: PeerAdvert, keeping current: DNSName) async throws {
        var removals: [DNSUpdate] = []
        for instance in try await dns.browse(serviceType: advert.serviceType, in: domain) where instance.name != current
        {
            let removal = try WideAreaNames.staleRemoval(
                of: instance,
                device: advert.deviceID,
                serviceType: advert.serviceType,
                domain: domain
            )
            if let removal { removals.append(removal) }
        }
        for removal in removals.prefix(WideAreaNames.maximumStaleRemovals) {
            do {
                try await dns.send(removal, now: Self.now())
            } catch WideAreaError.updateRefused(let rcode, _) where DNSUpdate.prerequisiteFailures.contains(rcode) {
                continue
            }
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

    /// Polls the domains for instances of `serviceType` other than `own`, handing what each poll changes in the
    /// addresses found (``WideAreaAddresses``) on to `changed`.
    func startBrowsing(
        serviceType: String,
        own: PeerID,
        changed: @escaping @Sendable (WideAreaAddresses.Changes) async -> Void,
        failed: @escaping @Sendable (PeerSessionError) -> Void
    ) {
        guard polling == nil else { return }
        polling = Task { await self.poll(serviceType: serviceType, own: own, changed: changed, failed: failed) }
    }

    func stopBrowsing() {
        polling?.cancel()
        polling = nil
    }

    /// The polling loop: the domains' instances, what they change in ``addresses``, then a wait of
    /// ``WideAreaConfiguration/pollInterval`` on the session clock. A failure is told once, until it changes.
    private func poll(
        serviceType: String,
        own: PeerID,
        changed: @Sendable (WideAreaAddresses.Changes) async -> Void,
        failed: @Sendable (PeerSessionError) -> Void
    ) async {
        var lastFailure: String?
        while !Task.isCancelled {
            var found: [WideAreaAddresses.Found] = []
            var complete = false
            do {
                for domain in await dns.browseDomains() {
                    for instance in try await dns.browse(serviceType: serviceType, in: domain) {
                        found += Self.addresses(of: instance, own: own)
                    }
                }
                complete = true
                lastFailure = nil
            } catch {
                if lastFailure != "\(error)" { failed(.wideArea("browsing \(domain): \(error)")) }
                lastFailure = "\(error)"
            }
            guard !Task.isCancelled else { return }
            let changes = addresses.polled(found, complete: complete)
            if changes.refused > 0, !refusing {
                let limit = addresses.configuration.limit
                failed(.wideArea("\(domain) lists more than \(limit) addresses: \(changes.refused) left out"))
            }
            refusing = changes.refused > 0
            await changed(changes)
            do {
                try await clock.sleep(until: clock.now + dns.configuration.pollInterval)
            } catch {
                return
            }
        }
    }

    /// The addresses of `instance`, each with the device its TXT `id` names; none without one, or when it is the
    /// session's own (TXT `in` is its token).
    static func addresses(of instance: WideAreaInstance, own: PeerID) -> [WideAreaAddresses.Found] {
        guard let device = device(of: instance), token(of: instance) != own.rawValue else { return [] }
        return instance.addresses.map {
            .init(address: PeerAddress(host: $0, port: Int(instance.port)), device: device)
        }
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
