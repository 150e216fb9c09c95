import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// One `connect` call's attempts, on plain instants: the pairing budget's answers, a busy peer tried again within
/// the deadline, and every way the call gives up.
@Suite("Session rules: a connect call's attempts")
struct ConnectAttemptsTests {
    let start = ContinuousClock.now
    let bob = PeerID(rawValue: "bob")

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .seconds(seconds) }

    var attempts: ConnectAttempts { ConnectAttempts(peer: bob, timeout: .seconds(10), now: start) }

    static func refused(_ reason: PeerCloseReason) -> PeerSessionError {
        .connection(.wire(.pairingRefused(reason: reason)))
    }

    @Test func theBudgetsAnswersBecomeDialWaitsOrFailures() {
        #expect(attempts.deadline == at(10))
        #expect(attempts.budget(nil) == .dial)
        #expect(attempts.budget(.tooSoon(retryAt: at(2))) == .waitUntil(at(2)))
        #expect(attempts.budget(.tooSoon(retryAt: at(10))) == .fail(.connectTimedOut(bob)))
        #expect(attempts.budget(.pairingInProgress) == .waitForPairingRun)
        #expect(attempts.budget(.paused(until: at(60))) == .fail(.pairingRateLimited))
    }

    @Test func waitingForThePairingRunEndsWithItOrTimesOut() {
        #expect(attempts.pairingRunWaitEnded(runEnded: true) == nil)
        #expect(attempts.pairingRunWaitEnded(runEnded: false) == .fail(.connectTimedOut(bob)))
    }

    @Test func aBusyPeerIsTriedAgainWithinTheDeadlineOnly() {
        let busy = Self.refused(.pairingBusy)
        #expect(
            attempts.dialFailed(busy, now: at(3), retryDelay: .milliseconds(700))
                == .waitUntil(at(3) + .milliseconds(700))
        )
        #expect(attempts.dialFailed(busy, now: at(9.5), retryDelay: .milliseconds(500)) == .fail(.connectTimedOut(bob)))
        // The same refusal as the peer's closing reason.
        let closed = PeerSessionError.connection(.wire(.closedByPeer(reason: .pairingBusy)))
        #expect(attempts.dialFailed(closed, now: at(1), retryDelay: .seconds(1)) == .waitUntil(at(2)))
    }

    @Test func aPausedPeerOrAnyOtherFailureEndsTheCall() {
        #expect(
            attempts.dialFailed(Self.refused(.pairingPaused), now: at(1), retryDelay: .seconds(1))
                == .fail(.pairingRateLimited)
        )
        let denied = PeerSessionError.connection(.wire(.pairingRejected(reason: .denied)))
        #expect(attempts.dialFailed(denied, now: at(1), retryDelay: .seconds(1)) == .fail(denied))
        #expect(
            attempts.dialFailed(.connectTimedOut(bob), now: at(10), retryDelay: .seconds(1))
                == .fail(.connectTimedOut(bob))
        )
    }
}
