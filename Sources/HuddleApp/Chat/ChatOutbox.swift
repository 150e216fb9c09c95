package import Huddle
import Synchronization

/// Lines on their way to each peer: one ordered queue per peer, so a peer that stops reading holds up only its own
/// lines — never the lines to the others for long, nor the screen. ``ChatQueueRule`` decides when a line waits
/// and when a peer that stopped reading has lines dropped. What the user should hear of goes to `notice`.
package final class ChatOutbox: Sendable {
    /// What the outbox tells its owner.
    package enum Notice: Sendable {
        /// The peer stopped reading: lines to it are dropped until it catches up (said once until it does).
        case notReading(PeerID)
        /// A line could not be sent to the peer.
        case notSent(PeerID, any Error)
    }

    private struct Sender {
        /// Tells this queue's sender from that of a queue to the same peer before it left and came back.
        let serial: Int
        let continuation: AsyncStream<[UInt8]>.Continuation
    }

    private struct State {
        var rule = ChatQueueRule()
        var senders: [PeerID: Sender] = [:]
        var sendersMade = 0
        /// Lines waiting for room, woken when any peer takes a line or leaves.
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Peers told about as not reading, until a line to them is queued again.
        var refusing: Set<PeerID> = []
        /// When the waiting lines are next looked at again without a take (the rule's stall limit), if set.
        var recheck: ContinuousClock.Instant?
    }

    private let session: PeerSession
    private let notice: @Sendable (Notice) async -> Void
    private let state = Mutex(State())

    package init(session: PeerSession, notice: @escaping @Sendable (Notice) async -> Void) {
        self.session = session
        self.notice = notice
    }

    /// Queues `bytes` for each peer, waiting while a peer that is still reading has a full queue; reports, by
    /// name, a peer that stopped reading.
    package func send(_ bytes: [UInt8], to peers: [PeerID]) async {
        for peer in peers {
            var admission = ChatQueueRule.Admission.wait(recheckAt: nil)
            while case .wait = admission { admission = await tryAdmitting(bytes, to: peer) }
            let tell = state.withLock { state -> Bool in
                if admission == .queued {
                    state.refusing.remove(peer)
                    return false
                }
                return state.refusing.insert(peer).inserted
            }
            if tell { await notice(.notReading(peer)) }
        }
    }

    /// Asks the rule about one line; when it must wait, returns once a take, a peer leaving or the rule's recheck
    /// instant may have changed the answer.
    private func tryAdmitting(_ bytes: [UInt8], to peer: PeerID) async -> ChatQueueRule.Admission {
        var admission = ChatQueueRule.Admission.wait(recheckAt: nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            var timer: ContinuousClock.Instant?
            state.withLock { state in
                admission = admit(bytes, to: peer, in: &state)
                guard case .wait(let recheckAt) = admission else { return }
                state.waiters.append(continuation)
                timer = scheduleRecheck(at: recheckAt, in: &state)
            }
            if let timer { wakeWaiters(at: timer) }
            if case .wait = admission { return }
            continuation.resume()
        }
        return admission
    }

    /// The peer left: what is queued is still tried (and reported if it cannot go), then its sender ends.
    package func close(_ peer: PeerID) {
        let (sender, waiters) = state.withLock { state in
            state.rule.remove(peer)
            defer { state.waiters.removeAll() }
            return (state.senders.removeValue(forKey: peer), state.waiters)
        }
        sender?.continuation.finish()
        for waiter in waiters { waiter.resume() }
    }

    private func admit(_ bytes: [UInt8], to peer: PeerID, in state: inout State) -> ChatQueueRule.Admission {
        if state.senders[peer] == nil {
            state.sendersMade += 1
            let serial = state.sendersMade
            state.senders[peer] = Sender(serial: serial, continuation: start(peer, serial: serial))
        }
        let admission = state.rule.admit(to: peer, now: .now)
        if admission == .queued { state.senders[peer]!.continuation.yield(bytes) }
        return admission
    }

    /// The peer's sender: sends its lines in order, each counted as taken when the session has it on its way.
    private func start(_ peer: PeerID, serial: Int) -> AsyncStream<[UInt8]>.Continuation {
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        let (session, notice) = (self.session, self.notice)
        Task {
            for await line in stream {
                do {
                    try await session.send(line, to: [peer])
                } catch {
                    await notice(.notSent(peer, error))
                }
                let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    guard state.senders[peer]?.serial == serial else { return [] }
                    state.rule.took(from: peer, now: .now)
                    defer { state.waiters.removeAll() }
                    return state.waiters
                }
                for waiter in waiters { waiter.resume() }
            }
        }
        return continuation
    }

    /// Records that the waiting lines must be looked at again at `instant`; returns the instant to set a timer
    /// for, or `nil` when one that fires no later is set already.
    private func scheduleRecheck(
        at instant: ContinuousClock.Instant?,
        in state: inout State
    ) -> ContinuousClock.Instant? {
        guard let instant, state.recheck.map({ instant < $0 }) ?? true else { return nil }
        state.recheck = instant
        return instant
    }

    /// At `instant`, wakes the waiting lines so that the rule looks at them again.
    private func wakeWaiters(at instant: ContinuousClock.Instant) {
        Task {
            try? await Task.sleep(until: instant, clock: .continuous)
            let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                if state.recheck == instant { state.recheck = nil }
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}
