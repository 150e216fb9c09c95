/// Which `Host` the share page's plain HTTP server answers (docs/localsend.md, "Sharing"): only the address and
/// port the request came to, as a browser that was given the page's URL sends them.
///
/// A page on another site that a browser on the LAN shows can make that browser ask for this server through a
/// name of the other site's own that it re-points at this host's address (DNS rebinding): the browser then treats
/// the answers as the other site's and lets its script read them. Such a request names the other site in `Host`
/// (RFC 9110 §7.2), so it is refused (421 Misdirected Request, RFC 9110 §15.5.20); a request for this host by
/// its address is served.
public enum LocalSendHostRule {
    /// Whether a request whose `Host` is `authority` may be served on a connection to `localAddress`:`localPort`.
    /// - Parameters:
    ///   - authority: the `Host` header ("10.0.0.2:53318", or "10.0.0.2" for port 80); nil when there is none.
    ///   - localAddress: the address the connection came to (IPv4, or IPv6 without brackets).
    ///   - localPort: the port it came to.
    public static func accepts(authority: String?, localAddress: String, localPort: Int) -> Bool {
        guard let authority, !authority.isEmpty else { return false }
        let host: Substring
        let port: Int
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            guard let parsed = rest.isEmpty ? 80 : rest.hasPrefix(":") ? Int(rest.dropFirst()) : nil else {
                return false
            }
            port = parsed
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let parsed = Int(authority[authority.index(after: colon)...]) else { return false }
            port = parsed
        } else {
            host = Substring(authority)
            port = 80
        }
        return port == localPort && host.lowercased() == localAddress.lowercased()
    }
}
