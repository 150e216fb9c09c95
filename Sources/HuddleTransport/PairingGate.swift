public import HuddleWire
import NIOConcurrencyHelpers
public import NIOCore

/// One session's ``PairingBudget``, shared by all its connections (any thread): the handler charges a run before
/// the handshake sends a nonce or a commitment, and returns it when the connection pairs or ends.
public final class PairingGate: Sendable {
    private struct State {
        var budget: PairingBudget
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state: NIOLockedValueBox<State>
    private let paused: @Sendable (PairingBudget.Pause) -> Void
    private let now: @Sendable () -> ContinuousClock.Instant

    /// - Parameters:
    ///   - paused: told when failed runs pause pairing (once per pause), to tell the user.
    ///   - now: the budget's clock; tests move it by hand.
    public init(
        configuration: PairingBudget.Configuration = .init(),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        paused: @escaping @Sendable (PairingBudget.Pause) -> Void = { _ in }
    ) {
        self.state = NIOLockedValueBox(State(budget: PairingBudget(configuration: configuration)))
        self.paused = paused
        self.now = now
    }

    /// The source of a connection: the device key TLS proved, and the peer's address.
    public static func source(device: DeviceID, address: SocketAddress?) -> PairingBudget.Source {
        PairingBudget.Source(device: device, address: address.flatMap(addressKey))
    }

    /// The address part of a source: the IP address without a zone, an IPv4-mapped IPv6 address as IPv4. Not an
    /// IPv6 prefix: on a local network every host shares the /64 (and fe80::/64), so a prefix would make the
    /// whole network one source. A host with many addresses gets past this part; the device key part, the one
    /// pairing at a time and the pause still bound it.
    public static func addressKey(_ address: SocketAddress) -> String? {
        guard var text = address.ipAddress else { return nil }
        if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
        if text.lowercased().hasPrefix("::ffff:"), text.contains(".") { text = String(text.dropFirst(7)) }
        return text
    }

    public func open(_ source: PairingBudget.Source, role: PeerRole) -> PairingBudget.Decision {
        let now = now()
        return state.withLockedValue { $0.budget.open(source, role: role, now: now) }
    }

    /// Whether a run from `source` would be granted now.
    public func check(_ source: PairingBudget.Source, role: PeerRole) -> PairingBudget.Refusal? {
        let now = now()
        return state.withLockedValue { $0.budget.check(source, role: role, now: now) }
    }

    public func close(_ run: PairingBudget.Run, paired: Bool, drewCode: Bool = true) {
        let now = now()
        let (pause, waiters) = state.withLockedValue { state in
            let pause = state.budget.close(run, paired: paired, drewCode: drewCode, now: now)
            defer { state.waiters = [:] }
            return (pause, state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
        if let pause { paused(pause) }
    }

    /// Returns once a run ends (at once when none is in flight, or when the task is cancelled): a dial that
    /// found the budget busy waits here instead of trying again and again.
    public func runEnded() async {
        let number = state.withLockedValue { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLockedValue { state -> Bool in
                    guard state.budget.runsInFlight > 0, !Task.isCancelled else { return true }
                    state.waiters[number] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLockedValue { $0.waiters.removeValue(forKey: number) }?.resume()
        }
    }
}
