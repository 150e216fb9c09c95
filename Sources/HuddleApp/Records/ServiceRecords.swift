import HuddleDNS
public import HuddleMDNSCore

// The JSON objects of `discover` and `advertise` (one per line with `--json`).

/// `added` or `updated`: a resolved DNS-SD service. Addresses and the interface come as the command shows them
/// (an IPv6 link-local address with its interface's name).
public struct ServiceRecord: Encodable, Sendable, Equatable {
    public var event: String
    public var name: String
    public var type: String
    public var domain: String
    public var host: String
    public var port: Int
    public var addresses: [String]
    /// TXT: a value as a string, an attribute without `=` as true (RFC 6763 §6.4).
    public var txt: [String: TXTValue]
    public var interface: String

    public init(_ event: String, _ service: MDNSResolvedService, addresses: [String], interface: String) {
        self.event = event
        self.name = service.instanceName
        self.type = service.type
        self.domain = service.domain
        self.host = service.host.hostText
        self.port = Int(service.port)
        self.addresses = addresses
        self.txt = TXTValue.object(service.txt)
        self.interface = interface
    }
}

/// A TXT attribute's value: a string, or true for an attribute without `=` (RFC 6763 §6.4).
public enum TXTValue: Encodable, Sendable, Equatable {
    case string(String)
    case present

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .present: try container.encode(true)
        }
    }

    /// Every entry of `txt` (a key seen twice: its last value).
    public static func object(_ txt: MDNSTXTRecord) -> [String: TXTValue] {
        var object: [String: TXTValue] = [:]
        for entry in txt.entries {
            object[entry.key] = entry.value.map { .string(String(decoding: $0, as: UTF8.self)) } ?? .present
        }
        return object
    }
}

/// The other events of `discover` and `advertise`: each with the fields it has, the rest left out.
public struct ServiceEventRecord: Encodable, Sendable, Equatable {
    public var event: String
    public var name: String?
    public var type: String?
    public var port: Int?
    public var host: String?
    public var from: String?
    public var to: String?

    /// `removed`: a service went away.
    public static func removed(name: String, type: String) -> Self {
        Self(event: "removed", name: name, type: type)
    }

    /// `type` (a service type appeared) or `typeRemoved` (it went away), with `.local` left off.
    public static func type(_ type: String, found: Bool) -> Self {
        Self(event: found ? "type" : "typeRemoved", type: type)
    }

    /// `registered`: an advertised service is announced, under `name`.
    public static func registered(name: String, type: String, port: Int, host: String) -> Self {
        Self(event: "registered", name: name, type: type, port: port, host: host)
    }

    /// `renamed` (a service name was taken, the next is tried) or `hostRenamed` (the host name was).
    public static func renamed(from: String, to: String, host: Bool = false) -> Self {
        Self(event: host ? "hostRenamed" : "renamed", from: from, to: to)
    }
}
