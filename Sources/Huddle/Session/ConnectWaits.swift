import HuddleTransport
import HuddleWire

/// The waits of a `connect` call between its dials, as ``ConnectAttempts`` decides them: for the pairing budget to
/// let a first contact start, for this session's pairing run with another device to end, for a retry's time. They
/// wait on the session clock and throw `.cancelled` when the calling task is cancelled.
struct ConnectWaits: Sendable {
    let pairingGate: PairingGate
    let clock: any SessionClock

    /// Waits until the pairing budget lets a first-contact dial to `source` start; `stopped` is asked after each
    /// wait.
    func waitForPairingBudget(
        _ source: PairingBudget.Source,
        _ attempts: ConnectAttempts,
        stopped: @Sendable () async -> Bool
    ) async throws {
        while true {
            let step = attempts.budget(pairingGate.check(source, role: .initiator))
            guard step != .dial else { return }
            try await carryOut(step, attempts)
            guard await !stopped() else { throw PeerSessionError.stopped }
        }
    }

    /// Carries out a step other than dialling: waits, or throws.
    func carryOut(_ step: ConnectAttempts.Step, _ attempts: ConnectAttempts? = nil) async throws {
        switch step {
        case .dial:
            return
        case .fail(let error):
            throw error
        case .waitUntil(let instant):
            do { try await clock.sleep(until: instant) } catch { throw PeerSessionError.cancelled }
        case .waitForPairingRun:
            guard let attempts else { return }
            let (gate, clock) = (pairingGate, self.clock)
            let ended = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    await gate.runEnded()
                    return true
                }
                group.addTask {
                    try? await clock.sleep(until: attempts.deadline)
                    return false
                }
                let first = await group.next()!
                group.cancelAll()
                return first
            }
            guard !Task.isCancelled else { throw PeerSessionError.cancelled }
            if let failed = attempts.pairingRunWaitEnded(runEnded: ended) { try await carryOut(failed) }
        }
    }
}
