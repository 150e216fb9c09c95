import Crypto
public import HuddleDNS

/// A DNS-SD service type such as `_http._tcp` (RFC 6763 §7), optionally narrowed to a subtype (§7.1).
public struct MDNSServiceType: Hashable, Sendable, CustomStringConvertible {
    /// The service name without its underscore, e.g. `http`.
    public var serviceName: String
    /// `tcp` for TCP services, `udp` for everything else (RFC 6763 §7).
    public var transport: String
    /// A subtype to browse for, without its underscore handling (`_printer` stays `_printer`), or nil.
    public var subtype: String?
    /// The domain, `local` for mDNS.
    public var domain: DNSName

    /// The type's DNS name, e.g. `_http._tcp.local.`.
    public var name: DNSName {
        let labels = [Array("_\(self.serviceName)".utf8), Array("_\(self.transport)".utf8)]
        return DNSName(uncheckedLabels: labels + self.domain.labels)
    }

    /// The name browsed for: the type's name, or `<subtype>._sub.<type>` for a subtype (RFC 6763 §7.1).
    public var browseName: DNSName {
        guard let subtype = self.subtype else { return self.name }
        return DNSName(uncheckedLabels: [Array(subtype.utf8), Array("_sub".utf8)] + self.name.labels)
    }

    /// `_http._tcp`, or `_printer._sub._http._tcp` for a subtype.
    public var description: String {
        let base = "_\(self.serviceName)._\(self.transport)"
        return self.subtype.map { "\($0)._sub.\(base)" } ?? base
    }

    /// Makes a type from parts that were already checked.
    public init(serviceName: String, transport: String = "tcp", subtype: String? = nil, domain: DNSName = "local") {
        self.serviceName = serviceName
        self.transport = transport
        self.subtype = subtype
        self.domain = domain
    }

    /// Parses `_name._tcp`, `_name._udp`, with an optional `sub._sub.` prefix and `.local` suffix.
    ///
    /// - Parameter strict: when true, the service name must follow RFC 6335 §5.1 (what a registrar must check);
    ///   when false, any non-empty label is tolerated (what a browser must accept, RFC 6763 §7).
    /// - Throws: ``MDNSError`` with code `.invalidServiceType`, saying what is wrong.
    public init(parsing text: String, strict: Bool) throws {
        var parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if parts.last == "" { parts.removeLast() }
        if parts.last?.lowercased() == "local" { parts.removeLast() }
        var subtype: String?
        if parts.count == 4, parts[1].lowercased() == "_sub" {
            subtype = parts[0]
            parts.removeFirst(2)
        }
        guard parts.count == 2 else {
            throw MDNSError(.invalidServiceType, "'\(text)' is not of the form _name._tcp or _name._udp")
        }
        let transport = parts[1].lowercased()
        guard transport == "_tcp" || transport == "_udp" else {
            throw MDNSError(.invalidServiceType, "'\(text)': the second label must be _tcp or _udp")
        }
        guard parts[0].hasPrefix("_"), parts[0].count > 1 else {
            throw MDNSError(.invalidServiceType, "'\(text)': the service name must start with '_'")
        }
        let serviceName = String(parts[0].dropFirst())
        if strict, let problem = Self.rfc6335Problem(serviceName) {
            throw MDNSError(.invalidServiceType, "'\(text)': \(problem)")
        }
        if let subtype, subtype.isEmpty || subtype.utf8.count > 63 {
            throw MDNSError(.invalidServiceType, "'\(text)': a subtype is 1 to 63 bytes")
        }
        guard serviceName.utf8.count <= 62 else { throw MDNSError(.invalidServiceType, "'\(text)': too long") }
        self.init(serviceName: serviceName, transport: String(transport.dropFirst()), subtype: subtype)
    }

    /// Why `name` is not a valid RFC 6335 §5.1 service name, or nil when it is.
    public static func rfc6335Problem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard (1...15).contains(bytes.count) else { return "a service name has 1 to 15 characters" }
        func isAlnum(_ b: UInt8) -> Bool { isLetter(b) || (48...57).contains(b) }
        func isLetter(_ b: UInt8) -> Bool { (65...90).contains(b) || (97...122).contains(b) }
        guard bytes.allSatisfy({ isAlnum($0) || $0 == UInt8(ascii: "-") }) else {
            return "a service name holds only letters, digits and hyphens"
        }
        guard isAlnum(bytes.first!), isAlnum(bytes.last!) else {
            return "a service name starts and ends with a letter or digit"
        }
        guard !name.contains("--") else { return "a service name has no two hyphens in a row" }
        guard bytes.contains(where: isLetter) else { return "a service name has at least one letter" }
        return nil
    }

    /// The service type for a GameKit-style session ID.
    ///
    /// A session ID that is a valid RFC 6335 service name is used as is, in lower case, so it stays readable:
    /// `TypingTogether` becomes `_typingtogether._tcp`. Any other ID (spaces, punctuation, non-ASCII, more than
    /// 15 characters, empty) maps to `h-` followed by the first 13 characters of the lower-case RFC 4648 base32
    /// form of the SHA-256 of its UTF-8 bytes: 65 bits of hash, so equal IDs always meet and different IDs
    /// practically never do. Valid IDs compare case-insensitively, as DNS names do.
    public init(sessionID: String) {
        if Self.rfc6335Problem(sessionID) == nil {
            self.init(serviceName: sessionID.lowercased())
            return
        }
        let digest = Array(SHA256.hash(data: Array(sessionID.utf8)))
        self.init(serviceName: "h-" + String(Self.base32(digest).prefix(13)))
    }

    static func base32(_ bytes: [UInt8]) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        var out = ""
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        return out
    }
}

/// The name every DNS-SD responder answers with its service types (RFC 6763 §9).
public let dnssdServicesName: DNSName = "_services._dns-sd._udp.local"
