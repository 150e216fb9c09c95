public import HuddleWire

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

    /// The secret every request carries (`?token=` or the `token` field of a form), 32 random bytes as hex.
    public let token: String
    /// The port the page listens on: the only one its `Host` and `Origin` may name.
    public let port: Int

    public init(token: String = Hex.randomToken(byteCount: 32), port: Int) {
        self.token = token
        self.port = port
    }

    /// The names a browser may call the page by: the loopback addresses with the page's port.
    public var hosts: [String] { ["127.0.0.1:\(port)", "[::1]:\(port)", "localhost:\(port)"] }

    /// The verdict on one request: `origin` is nil when the browser sent none (a typed address, a link).
    public func check(host: String?, origin: String?, token given: String?) -> Refusal? {
        guard let host, hosts.contains(host.lowercased()) else { return .foreignHost }
        if let origin, !hosts.contains(where: { "http://\($0)" == origin.lowercased() }) { return .foreignOrigin }
        guard let given, !given.isEmpty else { return .noToken }
        return Self.equalInConstantTime(given, token) ? nil : .wrongToken
    }

    /// Whether two tokens are equal, taking as long for a wrong first byte as for a wrong last one.
    static func equalInConstantTime(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
