import Huddle
import Synchronization

/// Lines on their way to each peer: one ordered queue per peer, so a peer that stops reading holds up only its own
/// lines — never the lines to the others for long, nor the screen. ``ChatQueueRule`` decides when a line waits
/// and when a peer that stopped reading has lines dropped.
final class ChatOutbox: Sendable {
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
    }

    private let session: PeerSession
    private let state = Mutex(State())

    init(session: PeerSession) {
        self.session = session
    }

    /// Queues `bytes` for each peer, waiting while a peer that is still reading has a full queue; reports, by
    /// name, a peer that stopped reading.
    func send(_ bytes: [UInt8], to peers: [PeerID]) async {
        for peer in peers {
            var admission = ChatQueueRule.Admission.wait
            while admission == .wait {
                await withCheckedContinuation { continuation in
                    admission = state.withLock { state in
                        let admission = admit(bytes, to: peer, in: &state)
                        if admission == .wait { state.waiters.append(continuation) }
                        return admission
                    }
                    if admission != .wait { continuation.resume() }
                }
            }
            let tell = state.withLock { state -> Bool in
                if admission == .queued {
                    state.refusing.remove(peer)
                    return false
                }
                return state.refusing.insert(peer).inserted
            }
            if tell { Output.line("! \(await name(peer)) is not reading: lines to it are dropped until it catches up") }
        }
    }

    /// The peer left: what is queued is still tried (and reported if it cannot go), then its sender ends.
    func close(_ peer: PeerID) {
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
        let admission = state.rule.admit(to: peer)
        if admission == .queued { state.senders[peer]!.continuation.yield(bytes) }
        return admission
    }

    /// The peer's sender: sends its lines in order, each counted as taken when the session has it on its way.
    private func start(_ peer: PeerID, serial: Int) -> AsyncStream<[UInt8]>.Continuation {
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        let session = self.session
        Task {
            for await line in stream {
                do {
                    try await session.send(line, to: [peer])
                } catch {
                    let who = await session.displayName(for: peer) ?? peer.rawValue
                    Output.line("! not sent to \(who): \(error)")
                }
                let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    guard state.senders[peer]?.serial == serial else { return [] }
                    state.rule.took(from: peer)
                    defer { state.waiters.removeAll() }
                    return state.waiters
                }
                for waiter in waiters { waiter.resume() }
            }
        }
        return continuation
    }

    fileprivate func name(_ peer: PeerID) async -> String {
        await session.displayName(for: peer) ?? peer.rawValue
    }
}
