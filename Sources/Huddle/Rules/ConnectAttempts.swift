import HuddleTransport
import HuddleWire

/// The rules of one `connect` call across its attempts, without I/O or a clock of its own: when a first-contact dial
/// may start under the pairing budget, when to try again after the peer said it was busy pairing, and when the
/// call's deadline has made trying pointless. `PeerSession.connect(to:timeout:context:)` asks it after each event
/// and carries out the ``Step``; see `docs/design.md`, "The session state machine".
struct ConnectAttempts: Equatable {
    enum Step: Equatable {
        /// Dial now.
        case dial
        /// Wait until this instant, then ask again.
        case waitUntil(ContinuousClock.Instant)
        /// Wait for this session's pairing run with another device to end (or for the deadline), then ask again.
        case waitForPairingRun
        /// Give up with this error.
        case fail(PeerSessionError)
    }

    let peer: PeerID
    /// When the whole exchange, decisions included, must be done.
    let deadline: ContinuousClock.Instant

    init(peer: PeerID, timeout: Duration, now: ContinuousClock.Instant) {
        self.peer = peer
        deadline = now + timeout
    }

    /// What a first-contact dial does given the pairing budget's `refusal` (`nil`: the budget lets it start).
    func budget(_ refusal: PairingBudget.Refusal?) -> Step {
        switch refusal {
        case nil: .dial
        case .paused: .fail(.pairingRateLimited)
        case .tooSoon(let retryAt): retryAt < deadline ? .waitUntil(retryAt) : .fail(.connectTimedOut(peer))
        case .pairingInProgress: .waitForPairingRun
        }
    }

    /// The wait for this session's pairing run ended: with the run's end (`true`), or at the deadline.
    /// - Returns: `nil` to ask the budget again, or the failure.
    func pairingRunWaitEnded(runEnded: Bool) -> Step? {
        runEnded ? nil : .fail(.connectTimedOut(peer))
    }

    /// A dial failed with `error` at `now`. A peer busy pairing another device (or one that heard from us a moment
    /// ago) is tried again after `retryDelay`, within the deadline; a peer whose pairing is paused refuses for a
    /// while, so the call gives up; any other failure is the call's.
    func dialFailed(_ error: PeerSessionError, now: ContinuousClock.Instant, retryDelay: Duration) -> Step {
        guard let refusal = error.wireError.flatMap(PeerSessionStateMachine.pairingRefusal) else {
            return .fail(error)
        }
        guard refusal == .pairingBusy else { return .fail(.pairingRateLimited) }
        let retry = now + retryDelay
        return retry < deadline ? .waitUntil(retry) : .fail(.connectTimedOut(peer))
    }
}
