/// One subscriber's view of an ``EventBroadcast``: every element from when it subscribed, in order, at its own
/// pace. Iterating ends when the broadcast finishes or the iterating task is cancelled; the subscription itself
/// ends when the last copy of it and of its iterators is gone (what it held is then released). Copies of the
/// subscription and of its iterators share one place in the stream.
public struct EventSubscription<Element: Sendable>: AsyncSequence, Sendable {
    /// Ends the subscription when the last copy of it (or of its iterator) goes away.
    @usableFromInline
    final class Token: Sendable {
        @usableFromInline let broadcast: EventBroadcast<Element>
        @usableFromInline let id: Int

        init(broadcast: EventBroadcast<Element>, id: Int) {
            self.broadcast = broadcast
            self.id = id
        }

        deinit { broadcast.cancel(id) }
    }

    @usableFromInline let token: Token

    init(broadcast: EventBroadcast<Element>, id: Int) {
        token = Token(broadcast: broadcast, id: id)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline let token: Token

        @inlinable
        public mutating func next() async -> Element? {
            await token.broadcast.next(for: token.id)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(token: token) }
}
