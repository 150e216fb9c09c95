import HuddleTransport
import NIOConcurrencyHelpers
import NIOCore

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
