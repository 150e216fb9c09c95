public import NIOConcurrencyHelpers
public import NIOCore

/// Hands every element to every subscriber, each at its own pace (``EventSubscription``).
///
/// An element may come with a *hold*: an object kept alive as long as any subscriber still has the element to
/// take (a received message's charge against the session's receive budget, which counts the bytes out when it
/// goes). So the slowest subscriber holds the budget, and memory stays bounded by it. Elements yielded before
/// anyone subscribed wait for the first subscriber, so a caller that subscribes just after `start()` misses
/// nothing; later subscribers see what comes after they subscribed. With no subscriber left, a hold is let go at
/// once.
///
/// Every message of a session passes through here, from another module: the hot paths are `@inlinable` so that
/// they are specialised for the session's event type rather than run generically (`BENCHMARKS.md`).
@usableFromInline
package final class EventBroadcast<Element: Sendable>: Sendable {
    /// One element and its hold, shared by the subscribers that are still to take it.
    @usableFromInline
    final class Entry: Sendable {
        @usableFromInline let element: Element
        @usableFromInline let hold: (any AnyObject & Sendable)?

        @inlinable
        init(_ element: Element, hold: (any AnyObject & Sendable)?) {
            self.element = element
            self.hold = hold
        }
    }

    @usableFromInline
    struct Subscriber: Sendable {
        @usableFromInline var buffer = CircularBuffer<Entry>()
        @usableFromInline var waiter: CheckedContinuation<Element?, Never>?

        @inlinable
        init() {}

        /// Buffers `entry`; returns the oldest one when that makes the buffer longer than `limit`.
        @inlinable
        mutating func hold(_ entry: Entry, limit: Int?) -> Entry? {
            buffer.append(entry)
            guard let limit, buffer.count > limit else { return nil }
            return buffer.removeFirst()
        }
    }

    @usableFromInline
    struct State: Sendable {
        @usableFromInline var subscribers: [Int: Subscriber] = [:]
        @usableFromInline var nextID = 0
        /// What came before the first subscriber; nil once there was one.
        @usableFromInline var backlog: [Entry]? = []
        @usableFromInline var finished = false

        @inlinable
        init() {}
    }

    @usableFromInline let state = NIOLockedValueBox(State())
    @usableFromInline let bufferLimit: Int?

    /// - Parameter bufferLimit: the most elements one subscriber (or the backlog) holds; past it the oldest is
    ///   dropped. Nil for no limit: then the holds of the elements must bound memory (a receive budget).
    package init(bufferLimit: Int? = nil) {
        self.bufferLimit = bufferLimit
    }

    /// Hands `element` to every subscriber; `hold` stays alive until each of them has taken it (or ended, or
    /// dropped it past the buffer limit).
    @inlinable
    package func yield(_ element: Element, holding hold: (any AnyObject & Sendable)? = nil) {
        // What leaves the buffers goes after the lock: letting go of a hold may run its deinit.
        var dropped: [Entry] = []
        let waiting = state.withLockedValue { state -> Waiting in
            guard !state.finished else { return .none }
            if state.backlog != nil {
                state.backlog!.append(Entry(element, hold: hold))
                if let bufferLimit, state.backlog!.count > bufferLimit { dropped.append(state.backlog!.removeFirst()) }
                return .none
            }
            // The common case, one subscriber, without collecting anything.
            if state.subscribers.count == 1, let id = state.subscribers.keys.first {
                if let waiter = state.subscribers[id]!.waiter {
                    state.subscribers[id]!.waiter = nil
                    return .one(waiter)
                }
                if let old = state.subscribers[id]!.hold(Entry(element, hold: hold), limit: bufferLimit) {
                    dropped.append(old)
                }
                return .none
            }
            // Subscribers waiting take it now; the others hold it until they take it.
            let entry = Entry(element, hold: hold)
            var waiting: [CheckedContinuation<Element?, Never>] = []
            // The keys copied first: iterating the dictionary while changing it would copy it, and every buffer.
            for id in Array(state.subscribers.keys) {
                if let waiter = state.subscribers[id]!.waiter {
                    state.subscribers[id]!.waiter = nil
                    waiting.append(waiter)
                } else if let old = state.subscribers[id]!.hold(entry, limit: bufferLimit) {
                    dropped.append(old)
                }
            }
            return .many(waiting)
        }
        switch waiting {
        case .none: break
        case .one(let waiter): waiter.resume(returning: element)
        case .many(let waiters): for waiter in waiters { waiter.resume(returning: element) }
        }
        withExtendedLifetime(dropped) {}
    }

    /// The subscribers an element is handed to at once.
    @usableFromInline
    enum Waiting {
        case none
        case one(CheckedContinuation<Element?, Never>)
        case many([CheckedContinuation<Element?, Never>])
    }

    /// Ends every subscription once it has taken what it holds; later elements go nowhere.
    package func finish() {
        let waiting = state.withLockedValue { state -> [CheckedContinuation<Element?, Never>] in
            state.finished = true
            let waiters = state.subscribers.values.compactMap(\.waiter)
            // The keys copied first: iterating the dictionary while changing it would copy it, and every buffer.
            for id in Array(state.subscribers.keys) { state.subscribers[id]!.waiter = nil }
            return waiters
        }
        for waiter in waiting { waiter.resume(returning: nil) }
    }

    /// A new subscription: the backlog if it is the first, then everything yielded from now on.
    package func subscribe() -> EventSubscription<Element> {
        let id = state.withLockedValue { state -> Int in
            let id = state.nextID
            state.nextID += 1
            var subscriber = Subscriber()
            if let backlog = state.backlog {
                subscriber.buffer.append(contentsOf: backlog)
                state.backlog = nil
            }
            state.subscribers[id] = subscriber
            return id
        }
        return EventSubscription(broadcast: self, id: id)
    }

    /// The next element for subscriber `id`, waiting for one; nil once the broadcast finished and the subscriber
    /// has taken everything, or when the subscription ended.
    @inlinable
    func next(for id: Int) async -> Element? {
        // An element waiting is taken without suspending: a burst costs a lock per element, not a task switch.
        switch take(for: id) {
        case .element(let element): return element
        case .end: return nil
        case .empty: break
        }
        guard !Task.isCancelled else { return nil }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let taken = state.withLockedValue { state -> Entry?? in
                    // Changed in place: a copy of the subscriber would copy its whole buffer.
                    guard state.subscribers[id] != nil else { return .some(nil) }
                    if let entry = state.subscribers[id]!.buffer.popFirst() { return .some(entry) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.subscribers[id]!.waiter = continuation
                    return .none
                }
                guard case .some(let entry) = taken else { return }
                continuation.resume(returning: entry?.element)
            }
        } onCancel: {
            interrupt(id)
        }
    }

    @usableFromInline
    enum Taken {
        case element(Element)
        case end
        case empty
    }

    /// The next element for subscriber `id` if one waits in its buffer.
    @inlinable
    func take(for id: Int) -> Taken {
        let taken = state.withLockedValue { state -> (Entry?, Bool) in
            guard state.subscribers[id] != nil else { return (nil, true) }
            if let entry = state.subscribers[id]!.buffer.popFirst() { return (entry, false) }
            return (nil, state.finished)
        }
        switch taken {
        case (let entry?, _):
            return .element(entry.element)
        case (nil, true): return .end
        case (nil, false): return .empty
        }
    }

    /// The task waiting in subscriber `id`'s ``next(for:)`` was cancelled: that wait returns nil, and the
    /// subscription stays (an element handed over in the same instant may go to the cancelled wait).
    @usableFromInline
    func interrupt(_ id: Int) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Element?, Never>? in
            defer { state.subscribers[id]?.waiter = nil }
            return state.subscribers[id]?.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Subscriber `id` stops: what it still held is let go of.
    func cancel(_ id: Int) {
        let (waiter, held) = state.withLockedValue {
            state -> (CheckedContinuation<Element?, Never>?, CircularBuffer<Entry>) in
            guard let subscriber = state.subscribers.removeValue(forKey: id) else { return (nil, []) }
            return (subscriber.waiter, subscriber.buffer)
        }
        withExtendedLifetime(held) {}  // let go of after the lock
        waiter?.resume(returning: nil)
    }
}
