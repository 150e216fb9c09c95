import HuddleBase
import Synchronization

/// The one-time pass that opens a page on the LAN to one browser: the daemon's page for a phone
/// (docs/daemon.md, "A phone's page"). The person at the computer is shown a QR code of the page's address with
/// the pass in it; the first browser that brings the pass holds it, by its address, and no other may use it.
///
/// Pure: the server gives it each request's pass and address and the time, and acts on the verdict.
public struct BrowserPass: Sendable, Equatable {
    /// Why a request is refused; the page answers 403 with these words and nothing else.
    public enum Refusal: String, Sendable, Equatable {
        case noPass = "this page opens from the code the computer shows: scan it"
        case wrongPass = "this code is not the page's any more: show a new one on the computer"
        case held = "this code was already used by another device: show a new one on the computer"
        case expired = "this code was not used in time: show a new one on the computer"
    }

    /// How long a pass waits for its first browser; once held, it lasts until another is issued.
    public static let claimTime: Duration = .seconds(600)

    /// The secret (`?pass=`): random bytes as hex, new for each code shown.
    public let token: String
    public let issued: ContinuousClock.Instant
    /// The address of the browser that brought it first; nil while it waits.
    public private(set) var holder: String?

    public init(token: String, issued: ContinuousClock.Instant) {
        self.token = token
        self.issued = issued
    }

    /// Whether it still waits for its first browser at `now`: not held, and issued at most ``claimTime`` ago.
    public func waits(at now: ContinuousClock.Instant) -> Bool { holder == nil && now - issued <= Self.claimTime }

    /// Lets in a request that brings `given` from `address` at `now`, or says why not. The first that brings the
    /// right pass within ``claimTime`` becomes its holder.
    public mutating func admit(_ given: String?, from address: String, at now: ContinuousClock.Instant) -> Refusal? {
        guard let given, !given.isEmpty else { return .noPass }
        guard ConstantTime.equal(given, token) else { return .wrongPass }
        if let holder { return holder == address ? nil : .held }
        guard waits(at: now) else { return .expired }
        holder = address
        return nil
    }
}

/// The pass in force, shared by the daemon, which issues a new one each time a code is shown, and the page's
/// server, which checks every request by it. None at first: the page then refuses everyone.
public final class BrowserPasses: Sendable {
    let current = Mutex<BrowserPass?>(nil)
    let now: @Sendable () -> ContinuousClock.Instant

    public init(now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.now = now
    }

    /// Puts `token` in force; the pass before it, held or not, no longer opens the page.
    public func issue(_ token: String) {
        let issued = now()
        current.withLock { $0 = BrowserPass(token: token, issued: issued) }
    }

    /// The pass in force, if one was issued.
    public var pass: BrowserPass? { current.withLock { $0 } }

    /// The pass in force while it waits for its first browser (``BrowserPass/waits(at:)``).
    public var waiting: BrowserPass? {
        let now = now()
        return current.withLock { $0?.waits(at: now) == true ? $0 : nil }
    }

    /// The verdict on one request (``BrowserPass/admit(_:from:at:)``).
    public func admit(_ given: String?, from address: String) -> BrowserPass.Refusal? {
        let now = now()
        return current.withLock { pass in
            guard var held = pass else { return given == nil ? .noPass : .wrongPass }
            defer { pass = held }
            return held.admit(given, from: address, at: now)
        }
    }
}
