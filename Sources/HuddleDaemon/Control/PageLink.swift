import Synchronization

/// Where the daemon's web page answers, once it does (docs/web.md): its address with the token, which a `ui`
/// request replies. Set by the page's server when it listens; nil while it does not (not started, or switched off).
public final class PageLink: Sendable {
    let link = Mutex<String?>(nil)

    public init() {}

    public var url: String? { link.withLock { $0 } }

    public func set(_ url: String?) { link.withLock { $0 = url } }
}
