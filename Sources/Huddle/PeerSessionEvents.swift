import HuddleTransport
import NIOCore
import Synchronization

/// The events of a session, in order, for one consumer.
///
/// Received messages count against the session's receive budget until the consumer takes them: past
/// ``PeerSessionConfiguration/maximumUndeliveredBytes`` the session stops reading from its connections (TCP then
/// pushes back on the senders), and reading resumes once the consumer has caught up to half of it. A consumer
/// that stops reading therefore never makes memory grow without bound.
public struct PeerSessionEvents: AsyncSequence, Sendable {
    public typealias Element = PeerSessionEvent

    let stream: AsyncStream<PeerSessionEvent>
    let flow: ReceiveFlow

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<PeerSessionEvent>.AsyncIterator
        let flow: ReceiveFlow

        public mutating func next() async -> PeerSessionEvent? {
            let event = await base.next()
            if case .received(let bytes, _) = event { flow.consumed(bytes.count) }
            return event
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), flow: flow)
    }
}

/// The connected peers' channels, and the bytes received but not yet taken by the consumer.
///
/// Counting starts on the event loop, when a connection has a whole message (``PeerReceiveGate``), so the
/// connection that pushes the total over the budget stops reading at once; all paused connections resume together
/// when the consumer has caught up to half the budget.
final class ReceiveFlow: PeerReceiveGate {
    struct State {
        var channels: [PeerID: any Channel] = [:]
        var undelivered = 0
        var paused: [ObjectIdentifier: any Channel] = [:]
    }

    let budget: Int
    let state = Mutex(State())

    init(budget: Int) {
        self.budget = budget
    }

    var undelivered: Int { state.withLock { $0.undelivered } }

    func channel(for peer: PeerID) -> (any Channel)? { state.withLock { $0.channels[peer] } }

    func connected(_ peer: PeerID, channel: any Channel) {
        state.withLock { $0.channels[peer] = channel }
    }

    func disconnected(_ peer: PeerID, channel: (any Channel)?) {
        state.withLock { state in
            if let current = state.channels[peer], current === channel { state.channels[peer] = nil }
            if let channel { state.paused[ObjectIdentifier(channel)] = nil }
        }
    }

    func received(_ count: Int, on channel: any Channel) -> Bool {
        state.withLock { state in
            state.undelivered += count
            guard state.undelivered > budget else { return false }
            state.paused[ObjectIdentifier(channel)] = channel
            return true
        }
    }

    /// The consumer took (or the session dropped) a message of `count` bytes.
    func consumed(_ count: Int) {
        let resume: [any Channel] = state.withLock { state in
            state.undelivered -= count
            guard !state.paused.isEmpty, state.undelivered <= budget / 2 else { return [] }
            defer { state.paused.removeAll() }
            return Array(state.paused.values)
        }
        for channel in resume { channel.setOption(.autoRead, value: true).whenComplete { _ in } }
    }
}
