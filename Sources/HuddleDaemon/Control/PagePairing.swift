public import Foundation
import Synchronization

/// The pairing link the web page shows (docs/web.md, "The page"): issued from the page for 10 minutes, shown until
/// a device uses it or it expires, then what came of it.
public final class PagePairing: Sendable {
    /// What the page shows: the link while it waits, or the line saying who paired with it.
    public struct Shown: Sendable, Equatable, Encodable {
        public var link: String?
        public var said: String?

        public init(link: String?, said: String?) {
            (self.link, self.said) = (link, said)
        }
    }

    struct State {
        var link: String?
        var expires = Date.distantPast
        var said: String?
    }

    let state = Mutex(State())

    public init() {}

    /// A new link in force until `expires`; what the one before came to is forgotten.
    func issued(_ link: String, expires: Date) {
        state.withLock { $0 = State(link: link, expires: expires, said: nil) }
    }

    /// The wait for `link` ended: `said` when a device used it, nil when it expired unused.
    func ended(_ link: String, said: String?) {
        state.withLock { state in
            guard state.link == link else { return }  // a newer link was issued meanwhile
            (state.link, state.said) = (nil, said ?? "The pairing link expired unused.")
        }
    }

    /// What the page shows at `now`; nil before any link was issued from it.
    public func shown(at now: Date) -> Shown? {
        state.withLock { state in
            if let link = state.link, now < state.expires { return Shown(link: link, said: nil) }
            return state.said.map { Shown(link: nil, said: $0) }
        }
    }
}
