/// One subscriber's view of an ``EventBroadcast``: every element from when it subscribed, in order, at its own
/// pace. It ends when the broadcast finishes, when the iterating task is cancelled, or when the last copy of the
/// subscription and its iterator are gone (what it held is then released).
public struct EventSubscription<Element: Sendable>: AsyncSequence, Sendable {
    /// Ends the subscription when the last copy of it (or of its iterator) goes away.
    final class Token: Sendable {
        let broadcast: EventBroadcast<Element>
        let id: Int

        init(broadcast: EventBroadcast<Element>, id: Int) {
            self.broadcast = broadcast
            self.id = id
        }

        deinit { broadcast.cancel(id) }
    }

    let token: Token

    init(broadcast: EventBroadcast<Element>, id: Int) {
        token = Token(broadcast: broadcast, id: id)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let token: Token

        public mutating func next() async -> Element? {
            await token.broadcast.next(for: token.id)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(token: token) }
}
