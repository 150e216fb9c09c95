import Huddle
import Synchronization

/// Lines on their way to each peer: one ordered queue per peer, so a peer that stops reading holds up only its own
/// lines — never the lines to the others for long, nor the screen.
///
/// A full queue to a peer that is still taking lines holds up the typing (or the paste) until there is room: a
/// slow link gets every line. A full queue to a peer that has taken nothing for `stallTimeout` is a peer that
/// stopped reading: lines to it are dropped (and that said once) until it takes lines again.
final class ChatOutbox: Sendable {
    /// Lines waiting for one peer (beyond what the connection's buffers hold).
    static let maximumWaiting = 4096
    /// How long a full queue may go without the peer taking a line before lines to it are dropped.
    static let stallTimeout: Duration = .seconds(2)

    private struct Queue {
        /// Tells this queue's sender from that of a queue to the same peer before it left and came back.
        let serial: Int
        let continuation: AsyncStream<[UInt8]>.Continuation
        var waiting = 0
        /// When the peer last took a line, or when its queue last went from empty to not empty.
        var lastProgress = ContinuousClock.now
    }

    private enum Admission {
        case queued, wait, stalled
    }

    private let session: PeerSession
    private let queues = Mutex<[PeerID: Queue]>([:])
    private let queuesMade = Atomic<Int>(0)
    /// Peers told about as not reading, until a line to them is queued again.
    private let refusing = Mutex<Set<PeerID>>([])

    init(session: PeerSession) {
        self.session = session
    }

    /// Queues `bytes` for each peer, waiting while a peer that is still reading has a full queue; reports, by
    /// name, a peer that stopped reading.
    func send(_ bytes: [UInt8], to peers: [PeerID]) async {
        for peer in peers {
            var admission = admit(bytes, to: peer)
            while admission == .wait {
                try? await Task.sleep(for: .milliseconds(5))
                admission = admit(bytes, to: peer)
            }
            if admission == .stalled {
                guard refusing.withLock({ $0.insert(peer).inserted }) else { continue }
                Output.line("! \(await name(peer)) is not reading: lines to it are dropped until it catches up")
            } else {
                refusing.withLock { _ = $0.remove(peer) }
            }
        }
    }

    /// The peer left: what is queued is still tried (and reported if it cannot go), then its sender ends.
    func close(_ peer: PeerID) {
        queues.withLock { $0.removeValue(forKey: peer) }?.continuation.finish()
    }

    private func admit(_ bytes: [UInt8], to peer: PeerID) -> Admission {
        queues.withLock { queues in
            if queues[peer] == nil {
                let serial = queuesMade.add(1, ordering: .relaxed).newValue
                queues[peer] = Queue(serial: serial, continuation: start(peer, serial: serial))
            }
            let now = ContinuousClock.now
            guard queues[peer]!.waiting >= Self.maximumWaiting else {
                if queues[peer]!.waiting == 0 { queues[peer]!.lastProgress = now }
                queues[peer]!.waiting += 1
                queues[peer]!.continuation.yield(bytes)
                return .queued
            }
            return queues[peer]!.lastProgress.duration(to: now) < Self.stallTimeout ? .wait : .stalled
        }
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
                self.queues.withLock { queues in
                    guard queues[peer]?.serial == serial else { return }
                    queues[peer]!.waiting -= 1
                    queues[peer]!.lastProgress = .now
                }
            }
        }
        return continuation
    }

    fileprivate func name(_ peer: PeerID) async -> String {
        await session.displayName(for: peer) ?? peer.rawValue
    }
}
