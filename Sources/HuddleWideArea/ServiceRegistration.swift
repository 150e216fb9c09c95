public import HuddleDNS
import NIOCore

/// A DNS UPDATE (RFC 2136 §2): the zone, the prerequisites the zone must meet, then the records to delete and to
/// add, in one message the server applies whole or not at all.
public struct DNSUpdate: Hashable, Sendable {
    /// SOA's record type: the zone section names the zone with it (RFC 2136 §2.3).
    public static let soa = DNSRecordType(rawValue: 6)
    /// The class of a "delete this record" entry (RFC 2136 §2.5.4).
    public static let none = DNSClass(rawValue: 254)

    public var zone: DNSName
    /// What must hold in the zone for the server to apply ``updates`` (RFC 2136 §2.4, §3.2); when one does not,
    /// it applies nothing and answers NXRRSET, NXDOMAIN, YXDOMAIN or YXRRSET (§2.2).
    public var prerequisites: [DNSRecord]
    public var updates: [DNSRecord]

    public init(zone: DNSName, prerequisites: [DNSRecord] = [], updates: [DNSRecord]) {
        self.zone = zone
        self.prerequisites = prerequisites
        self.updates = updates
    }

    /// The RCODEs of a prerequisite that did not hold (RFC 2136 §2.2, §3.2.5): NXDOMAIN (3), YXDOMAIN (6),
    /// YXRRSET (7), NXRRSET (8).
    public static let prerequisiteFailures: Set<UInt8> = [3, 6, 7, 8]

    /// "RRset exists (value dependent)" (RFC 2136 §2.4.2): the server's RRset of `record`'s name and type must be
    /// exactly the records given so, no more, no fewer (TTL 0, the zone's class).
    public static func rrsetExists(_ record: DNSRecord) -> DNSRecord {
        DNSRecord(name: record.name, data: record.data, ttl: 0)
    }

    /// Deletes every record set of `name` (RFC 2136 §2.5.3: class ANY, type ANY, TTL 0, no data).
    public static func deleteAll(at name: DNSName) -> DNSRecord {
        DNSRecord(name: name, data: .unknown(.any, []), ttl: 0, recordClass: .any)
    }

    /// Deletes `record` alone (RFC 2136 §2.5.4: class NONE, TTL 0).
    public static func delete(_ record: DNSRecord) -> DNSRecord {
        DNSRecord(name: record.name, data: record.data, ttl: 0, recordClass: Self.none)
    }

    /// The message, opcode UPDATE (5), unsigned: the zone in the question section, the prerequisites in the
    /// answer section, the updates in the authority section (RFC 2136 §2).
    public func message(id: UInt16) -> [UInt8] {
        var message = DNSMessage(id: id, isResponse: false, answers: prerequisites, authorities: updates)
        message.opcode = 5
        message.questions = [DNSQuestion(name: zone, type: Self.soa)]
        return Array(message.encoded(compressSRVTarget: false).readableBytesView)
    }
}

/// A session's service in a wide-area DNS-SD domain (RFC 6763 §4, §11): the PTR that lists it under its type, its
/// SRV and TXT, and its host's addresses, under names of its own in the domain.
public struct ServiceRegistration: Hashable, Sendable {
    /// The instance label (the session's display name, or one made unique).
    public var instance: String
    /// `_typingtogether._tcp`
    public var serviceType: String
    public var domain: DNSName
    /// The label of the host name the SRV names (`<host>.<domain>`).
    public var host: String
    public var port: UInt16
    public var txt: [[UInt8]]
    public var ipv4: [IPv4Address]
    public var ipv6: [IPv6Address]
    /// Short, so that a registration left behind by a process that was killed is not believed for long by caches
    /// (BIND 9 keeps it until something deletes it: `docs/design.md`, "Wide-area DNS-SD").
    public var ttl: UInt32 = 120

    public init(
        instance: String,
        serviceType: String,
        domain: DNSName,
        host: String,
        port: UInt16,
        txt: [[UInt8]],
        ipv4: [IPv4Address],
        ipv6: [IPv6Address]
    ) {
        self.instance = instance
        self.serviceType = serviceType
        self.domain = domain
        self.host = host
        self.port = port
        self.txt = txt
        self.ipv4 = ipv4
        self.ipv6 = ipv6
    }

    public var serviceName: DNSName { get throws { try Self.name(serviceType, in: domain) } }
    public var instanceName: DNSName { get throws { try serviceName.prepending(label: instance) } }
    public var hostName: DNSName { get throws { try domain.prepending(label: host) } }

    /// `_x._tcp` under `domain`.
    public static func name(_ serviceType: String, in domain: DNSName) throws -> DNSName {
        var name = domain
        for label in serviceType.split(separator: ".").reversed() { name = try name.prepending(label: label) }
        return name
    }

    /// The records it consists of.
    public func records() throws -> [DNSRecord] {
        let (instanceName, hostName) = (try instanceName, try hostName)
        var records = [
            DNSRecord(name: try serviceName, data: .ptr(instanceName), ttl: ttl),
            DNSRecord(name: instanceName, data: .srv(priority: 0, weight: 0, port: port, target: hostName), ttl: ttl),
            DNSRecord(name: instanceName, data: .txt(txt), ttl: ttl),
        ]
        records += ipv4.map { DNSRecord(name: hostName, data: .a($0), ttl: ttl) }
        records += ipv6.map { DNSRecord(name: hostName, data: .aaaa($0), ttl: ttl) }
        return records
    }

    /// Replaces whatever its names held (a registration of an earlier run) with its records.
    public func registering(zone: DNSName) throws -> DNSUpdate {
        DNSUpdate(
            zone: zone,
            updates: [DNSUpdate.deleteAll(at: try instanceName), DNSUpdate.deleteAll(at: try hostName)]
                + (try records())
        )
    }

    /// Takes it out of the zone: its PTR, and everything at its instance and host names.
    public func removing(zone: DNSName) throws -> DNSUpdate {
        DNSUpdate(
            zone: zone,
            updates: [
                DNSUpdate.delete(DNSRecord(name: try serviceName, data: .ptr(try instanceName), ttl: 0)),
                DNSUpdate.deleteAll(at: try instanceName), DNSUpdate.deleteAll(at: try hostName),
            ]
        )
    }
}
