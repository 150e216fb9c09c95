import HuddleDNS
import HuddleWideArea
import HuddleWire

/// The names a session registers under in a wide-area domain (RFC 6763 §4.1), and the one deletion it makes of
/// names it did not register itself: an earlier session's registration of the same device, recognised by its form
/// and removed only if the server's data still says what the browse said (RFC 2136 §2.4.2). Pure.
///
/// The browse that finds an earlier registration is unauthenticated: anyone on the path can forge its answers,
/// and anyone holding a key of the zone can register an instance whose TXT `id` names another device. So a name
/// is deleted only when it has the form this device's sessions give their names, and the UPDATE carries the
/// instance's TXT and SRV as prerequisites, so that the server applies it only when its own records match
/// (`docs/threat-model.md`, "Wide-area DNS-SD").
enum WideAreaNames {
    /// The start of a session's host label; its token follows (``PeerID``).
    static let hostPrefix = "huddle-"
    /// Earlier registrations taken out at one registration, at most: each costs an UPDATE.
    static let maximumStaleRemovals = 8

    /// The instance label: the display name, then the device's short ID in parentheses. The name is shortened
    /// (whole characters) so that the short ID always fits in the 63 bytes of a label (RFC 1035 §2.3.4).
    static func instanceLabel(displayName: String, device: DeviceID) -> String {
        let suffix = " (\(device.shortID))"
        var label = DisplayText.sanitized(displayName)
        while !label.isEmpty, label.utf8.count + suffix.utf8.count > DNSName.maxLabelLength { label.removeLast() }
        return label + suffix
    }

    /// The host label of a session: `huddle-` and its token.
    static func hostLabel(peer: PeerID) -> String { hostPrefix + peer.rawValue }

    /// Whether `instance`, found in `domain` under `service`, has the form of a registration of `device` by one of
    /// its sessions: TXT `id` names the device, the instance label ends with ` (<short ID>)` right under the
    /// service name, and the SRV target is `huddle-<token>` right under the domain, where the token is the
    /// instance's TXT `in` and has the form of a session's token (``PeerID/random()``).
    static func isRegistration(
        _ instance: WideAreaInstance,
        of device: DeviceID,
        service: DNSName,
        domain: DNSName
    ) -> Bool {
        let suffix = Array(" (\(device.shortID))".utf8)
        guard SessionWideArea.device(of: instance) == device, let token = SessionWideArea.token(of: instance),
            token.utf8.count == PeerID.tokenLength, token.utf8.allSatisfy(PeerID.tokenAlphabet.contains),
            let instanceLabel = instance.name.labels.first, instanceLabel.suffix(suffix.count) == suffix[...],
            instance.name.labels.count == service.labels.count + 1, instance.name.dropping(first: 1) == service,
            let hostLabel = instance.host.labels.first, hostLabel == Array((hostPrefix + token).utf8),
            instance.host.labels.count == domain.labels.count + 1, instance.host.dropping(first: 1) == domain
        else { return false }
        return true
    }

    /// The UPDATE that takes out `instance`, an earlier registration of `device` (RFC 2136 §2.5): its PTR, and
    /// everything at its instance and host names; on condition (§2.4.2) that the instance's TXT and SRV RRsets are
    /// on the server exactly as the browse found them (a session registers one of each, SRV priority and weight
    /// 0). Nil when `instance` does not have the form of one (``isRegistration(_:of:service:domain:)``).
    static func staleRemoval(
        of instance: WideAreaInstance,
        device: DeviceID,
        serviceType: String,
        domain: DNSName
    ) throws -> DNSUpdate? {
        let service = try ServiceRegistration.name(serviceType, in: domain)
        guard isRegistration(instance, of: device, service: service, domain: domain) else { return nil }
        let srv = DNSRData.srv(priority: 0, weight: 0, port: instance.port, target: instance.host)
        return DNSUpdate(
            zone: domain,
            prerequisites: [
                DNSUpdate.rrsetExists(DNSRecord(name: instance.name, data: .txt(instance.txt), ttl: 0)),
                DNSUpdate.rrsetExists(DNSRecord(name: instance.name, data: srv, ttl: 0)),
            ],
            updates: [
                DNSUpdate.delete(DNSRecord(name: service, data: .ptr(instance.name), ttl: 0)),
                DNSUpdate.deleteAll(at: instance.name), DNSUpdate.deleteAll(at: instance.host),
            ]
        )
    }
}
