/// The data of a resource record, by type (RFC 1035 §3.3, RFC 2782, RFC 3596, RFC 4034 §4, RFC 6891).
///
/// Types this module does not know are kept as raw bytes, so they round-trip unchanged.
public enum DNSRData: Hashable, Sendable {
    /// An IPv4 address (type A).
    case a(IPv4Address)
    /// An IPv6 address (type AAAA).
    case aaaa(IPv6Address)
    /// A pointer to another name (type PTR).
    case ptr(DNSName)
    /// A service location (type SRV, RFC 2782).
    case srv(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
    /// Character strings, each 0–255 bytes (type TXT, RFC 6763 §6).
    case txt([[UInt8]])
    /// The types that exist for a name, in mDNS's restricted form (type NSEC, RFC 6762 §6.1).
    case nsec(next: DNSName, types: Set<DNSRecordType>)
    /// EDNS(0) options, kept as raw bytes (type OPT, RFC 6891 §6.1.2).
    case opt([UInt8])
    /// Any other type, as raw bytes.
    case unknown(DNSRecordType, [UInt8])

    /// The record type this data belongs to.
    public var type: DNSRecordType {
        switch self {
        case .a: .a
        case .aaaa: .aaaa
        case .ptr: .ptr
        case .srv: .srv
        case .txt: .txt
        case .nsec: .nsec
        case .opt: .opt
        case .unknown(let type, _): type
        }
    }
}

/// A resource record (RFC 1035 §4.1.3) with the mDNS cache-flush bit split out of the class (RFC 6762 §10.2).
public struct DNSRecord: Hashable, Sendable {
    /// The owner name.
    public var name: DNSName
    /// The class without the top bit; for OPT, the low 15 bits of the requestor's UDP payload size.
    public var recordClass: DNSClass
    /// The mDNS cache-flush bit (RFC 6762 §10.2): this record replaces the others of its name, type and class.
    public var cacheFlush: Bool
    /// Time to live in seconds; 0 in a goodbye (RFC 6762 §10.1).
    public var ttl: UInt32
    /// The data.
    public var data: DNSRData

    public init(
        name: DNSName,
        data: DNSRData,
        ttl: UInt32,
        cacheFlush: Bool = false,
        recordClass: DNSClass = .internet
    ) {
        self.name = name
        self.recordClass = recordClass
        self.cacheFlush = cacheFlush
        self.ttl = ttl
        self.data = data
    }

    /// The record type.
    public var type: DNSRecordType { self.data.type }

    /// Whether two records are the same record apart from TTL and cache-flush: same name, type, class and data.
    public func sameRecord(as other: DNSRecord) -> Bool {
        self.name == other.name && self.recordClass == other.recordClass && self.data == other.data
    }
}

/// A question (RFC 1035 §4.1.2) with the mDNS unicast-response bit split out of the class (RFC 6762 §5.4).
public struct DNSQuestion: Hashable, Sendable {
    /// The name asked about.
    public var name: DNSName
    /// The type asked for, possibly ``DNSRecordType/any``.
    public var type: DNSRecordType
    /// The class without the top bit.
    public var questionClass: DNSClass
    /// The QU bit: the querier would like a unicast reply (RFC 6762 §5.4).
    public var unicastResponse: Bool

    public init(name: DNSName, type: DNSRecordType, unicastResponse: Bool = false, questionClass: DNSClass = .internet)
    {
        self.name = name
        self.type = type
        self.questionClass = questionClass
        self.unicastResponse = unicastResponse
    }

    /// Whether `record` answers this question (RFC 6762 §6: same name, type or ANY, class or ANY).
    public func isAnswered(by record: DNSRecord) -> Bool {
        (self.type == .any || self.type == record.type)
            && (self.questionClass == .any || self.questionClass == record.recordClass)
            && self.name == record.name
    }
}
