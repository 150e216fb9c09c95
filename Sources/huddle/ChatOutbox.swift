import Huddle
import Synchronization

/// Lines on their way to each peer: one ordered queue per peer, so a peer that stops reading holds up only its own
/// lines — never the lines to the others, nor the screen.
final class ChatOutbox: Sendable {
    /// Lines waiting for one peer (beyond what the connection's buffers hold) before further ones to it are
    /// refused: a paste of a few thousand lines waits whole; a peer that reads nothing at all is reported gone by
    /// the disconnect timeout.
    static let maximumWaiting = 4096

    private let session: PeerSession
    private let queues = Mutex<[PeerID: AsyncStream<[UInt8]>.Continuation]>([:])
    /// Peers told about as not reading, until a line to them is queued again.
    private let refusing = Mutex<Set<PeerID>>([])

    init(session: PeerSession) {
        self.session = session
    }

    /// Queues `bytes` for each peer; reports, by name, a peer whose queue is full.
    func send(_ bytes: [UInt8], to peers: [PeerID]) async {
        for peer in peers {
            if case .dropped = queue(for: peer).yield(bytes) {
                guard refusing.withLock({ $0.insert(peer).inserted }) else { continue }
                Output.line("! \(await name(peer)) is not reading: lines to it are dropped until it catches up")
            } else {
                refusing.withLock { _ = $0.remove(peer) }
            }
        }
    }

    /// The peer left: what is queued is still tried (and reported if it cannot go), then its sender ends.
    func close(_ peer: PeerID) {
        queues.withLock { $0.removeValue(forKey: peer) }?.finish()
    }

    private func queue(for peer: PeerID) -> AsyncStream<[UInt8]>.Continuation {
        queues.withLock { queues in
            if let existing = queues[peer] { return existing }
            let (stream, continuation) = AsyncStream<[UInt8]>.makeStream(
                bufferingPolicy: .bufferingOldest(Self.maximumWaiting)
            )
            queues[peer] = continuation
            let session = self.session
            Task {
                for await line in stream {
                    do {
                        try await session.send(line, to: [peer])
                    } catch {
                        let who = await session.displayName(for: peer) ?? peer.rawValue
                        Output.line("! not sent to \(who): \(error)")
                    }
                }
            }
            return continuation
        }
    }

    fileprivate func name(_ peer: PeerID) async -> String {
        await session.displayName(for: peer) ?? peer.rawValue
    }
}
