/// Where to dial a peer that discovery cannot find: a host name or an IP address, and a TCP port
/// (`docs/design.md`, "Peers beyond the link"). Only where to dial: who answers there is decided, as for every
/// peer, by its key (a pin, or the code at first contact).
public struct PeerAddress: Hashable, Sendable, CustomStringConvertible {
    /// The port a `huddle` command listens on unless told otherwise, and the one a ``PeerAddress`` without a port
    /// names. Not registered with IANA; in the range it leaves to users (RFC 6335 §6).
    public static let defaultPort = 47474

    /// A host name, an IPv4 address, or an IPv6 address (with a `%zone` for a link-local one), without brackets.
    public var host: String
    public var port: Int

    public init(host: String, port: Int = Self.defaultPort) {
        self.host = host
        self.port = port
    }

    /// Reads `HOST`, `HOST:PORT`, `[IPv6]:PORT` or a bare IPv6 address (`fe80::1%eth0`), the forms users type.
    ///
    /// - Throws: ``PeerSessionError/invalidConfiguration(_:)`` saying what is wrong with `text`.
    public init(parsing text: String) throws {
        func invalid(_ why: String) -> PeerSessionError {
            .invalidConfiguration("\"\(text)\" is not a peer address: \(why) (HOST, HOST:PORT or [IPv6]:PORT)")
        }
        var host = Substring(text)
        var port = Self.defaultPort
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw invalid("no ] after the IPv6 address") }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw invalid("only :PORT may follow ]") }
                port = try Self.port(rest.dropFirst(), invalid)
            }
        } else if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon {
            port = try Self.port(host[host.index(after: colon)...], invalid)
            host = host[..<colon]
        }
        guard !host.isEmpty else { throw invalid("no host") }
        guard host.utf8.count <= 253, host.allSatisfy({ !$0.isWhitespace && $0 != "/" && $0 != "[" && $0 != "]" })
        else { throw invalid("the host has characters no host name or address has") }
        self.init(host: String(host), port: port)
    }

    private static func port(_ text: Substring, _ invalid: (String) -> PeerSessionError) throws -> Int {
        guard let port = Int(text), (1...65535).contains(port) else { throw invalid("the port must be 1 to 65535") }
        return port
    }

    /// `host:port`, with brackets around an IPv6 address.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
