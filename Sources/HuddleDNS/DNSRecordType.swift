/// A DNS resource record type (RFC 1035 §3.2.2), an open set so unknown types round-trip.
public struct DNSRecordType: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// IPv4 host address (RFC 1035 §3.4.1).
    public static let a = Self(rawValue: 1)
    /// Domain name pointer (RFC 1035 §3.3.12).
    public static let ptr = Self(rawValue: 12)
    /// Host information (RFC 1035 §3.3.2).
    public static let hinfo = Self(rawValue: 13)
    /// Text strings (RFC 1035 §3.3.14, RFC 6763 §6).
    public static let txt = Self(rawValue: 16)
    /// IPv6 host address (RFC 3596 §2.1).
    public static let aaaa = Self(rawValue: 28)
    /// Service locator (RFC 2782).
    public static let srv = Self(rawValue: 33)
    /// EDNS(0) pseudo-record (RFC 6891 §6.1).
    public static let opt = Self(rawValue: 41)
    /// Next secure record, used by mDNS for negative answers (RFC 4034 §4, RFC 6762 §6.1).
    public static let nsec = Self(rawValue: 47)
    /// Any type, in questions only (RFC 1035 §3.2.3).
    public static let any = Self(rawValue: 255)

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .a: "A"
        case .ptr: "PTR"
        case .hinfo: "HINFO"
        case .txt: "TXT"
        case .aaaa: "AAAA"
        case .srv: "SRV"
        case .opt: "OPT"
        case .nsec: "NSEC"
        case .any: "ANY"
        default: "TYPE\(self.rawValue)"
        }
    }
}

/// A DNS class (RFC 1035 §3.2.4) without the mDNS top bit, an open set.
public struct DNSClass: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The Internet class.
    public static let internet = Self(rawValue: 1)
    /// Any class, in questions only.
    public static let any = Self(rawValue: 255)

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { self == .internet ? "IN" : "CLASS\(self.rawValue)" }
}
