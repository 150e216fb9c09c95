import HuddleBase

/// Who may use the daemon's page (docs/web.md, "Access"): a request must carry the page's token and name the
/// loopback address it was served on, so that neither another local user's page nor a site whose name resolves to
/// 127.0.0.1 (DNS rebinding) can read it or act through it.
///
/// Pure: the server gives it each request's `Host`, `Origin` and token and acts on the verdict.
public struct PageAccess: Sendable, Equatable {
    /// Why a request is refused; the page answers 403 with these words and nothing else.
    public enum Refusal: String, Sendable, Equatable {
        case noToken = "this page needs the token huddle ui --url prints"
        case wrongToken = "the token is not this page's: run huddle ui --url again"
        case foreignHost = "the page answers only at its loopback address (127.0.0.1, [::1] or localhost)"
        case foreignOrigin = "a request from another page is refused"
    }

    /// The secret every request carries (`?token=`): 32 random bytes as hex, new each time the page starts.
    public let token: String
    /// The port the page listens on: the only one its `Host` and `Origin` may name.
    public let port: Int

    public init(token: String, port: Int) {
        self.token = token
        self.port = port
    }

    /// The names a browser may call the page by: the loopback addresses with the page's port, and without it when
    /// that is HTTP's default, 80 (RFC 9110 §7.2: a `Host` without a port names the scheme's default).
    public var hosts: [String] {
        let names = ["127.0.0.1", "[::1]", "localhost"]
        return names.map { "\($0):\(port)" } + (port == 80 ? names : [])
    }

    /// The verdict on one request: `origin` is nil when the browser sent none (a typed address, a link).
    public func check(host: String?, origin: String?, token given: String?) -> Refusal? {
        guard let host, hosts.contains(host.lowercased()) else { return .foreignHost }
        if let origin, !hosts.contains(where: { "http://\($0)" == origin.lowercased() }) { return .foreignOrigin }
        guard let given, !given.isEmpty else { return .noToken }
        return ConstantTime.equal(given, token) ? nil : .wrongToken
    }
}
