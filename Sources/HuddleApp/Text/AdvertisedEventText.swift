public import HuddleMDNSCore

/// What `huddle advertise` says of each event of its service (the README, "The command line"): a line, or with `--json`
/// a ``ServiceEventRecord``.
public struct AdvertisedEventText: Sendable {
    public let type: String
    public let port: Int
    public let host: String

    public init(type: String, port: Int, host: String) { (self.type, self.port, self.host) = (type, port, host) }

    public func line(_ event: MDNSResponderEvent) -> String {
        switch event {
        case .registered(_, let name): "Registered \"\(name)\" \(type) on \(host):\(port)"
        case .renamed(_, let from, let to): "Name conflict: \"\(from)\" is taken, trying \"\(to)\""
        case .hostRenamed(let from, let to): "Host name conflict: \(from).local is taken, now \(to).local"
        }
    }

    public func record(_ event: MDNSResponderEvent) -> ServiceEventRecord {
        switch event {
        case .registered(_, let name): .registered(name: name, type: type, port: port, host: host)
        case .renamed(_, let from, let to): .renamed(from: from, to: to)
        case .hostRenamed(let from, let to): .renamed(from: from, to: to, host: true)
        }
    }
}
