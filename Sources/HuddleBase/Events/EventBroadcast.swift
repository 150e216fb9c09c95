import NIOConcurrencyHelpers
import NIOCore
import Synchronization

/// Hands every element to every subscriber, each at its own pace (``EventSubscription``).
///
/// Elements that weigh something (received messages, counted against the session's receive budget) are released
/// once every subscriber that got them has taken them, or has ended: so the slowest subscriber holds the budget,
/// and memory stays bounded by it. Elements yielded before anyone subscribed wait for the first subscriber, so a
/// caller that subscribes just after `start()` misses nothing; later subscribers see what comes after they
/// subscribed. With no subscriber left, weighed elements are released at once.
package final class EventBroadcast<Element: Sendable>: Sendable {
    /// One element and, when it weighs something, the count of subscribers still to take it.
    final class Entry: Sendable {
        let element: Element
        let weight: Int
        private let holders: Synchronization.Atomic<Int>

        init(_ element: Element, weight: Int, holders: Int) {
            self.element = element
            self.weight = weight
            self.holders = Synchronization.Atomic(holders)
        }

        /// One holder is done with it; true for the last one.
        func drop() -> Bool {
            holders.subtract(1, ordering: .acquiringAndReleasing).newValue == 0
        }
    }

    struct Subscriber {
        var buffer = CircularBuffer<Entry>()
        var waiter: CheckedContinuation<Element?, Never>?

        /// Buffers `entry`; returns the oldest one when that makes the buffer longer than `limit`.
        mutating func hold(_ entry: Entry, limit: Int?) -> Entry? {
            buffer.append(entry)
            guard let limit, buffer.count > limit else { return nil }
            return buffer.removeFirst()
        }
    }

    struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        /// What came before the first subscriber; nil once there was one.
        var backlog: [Entry]? = []
        var finished = false
    }

    private let state = NIOLockedValueBox(State())
    private let weigh: @Sendable (Element) -> Int
    private let release: @Sendable (Int) -> Void
    private let bufferLimit: Int?

    /// - Parameters:
    ///   - weigh: how much an element counts against a budget (0 for most).
    ///   - release: called with an element's weight once nobody holds it any more.
    ///   - bufferLimit: the most elements one subscriber (or the backlog) holds; past it the oldest is dropped.
    ///     Nil for no limit: then weighed elements must bound memory through `weigh` and `release`.
    package init(
        weigh: @escaping @Sendable (Element) -> Int = { _ in 0 },
        release: @escaping @Sendable (Int) -> Void = { _ in },
        bufferLimit: Int? = nil
    ) {
        self.weigh = weigh
        self.release = release
        self.bufferLimit = bufferLimit
    }

    package func yield(_ element: Element) {
        let weight = weigh(element)
        var dropped: Entry?
        var droppedByOthers: [Entry] = []
        let (waiting, held) = state.withLockedValue { state -> (Waiting, Bool) in
            guard !state.finished else { return (.none, false) }
            if state.backlog != nil {
                state.backlog!.append(Entry(element, weight: weight, holders: 1))
                if let bufferLimit, state.backlog!.count > bufferLimit { dropped = state.backlog!.removeFirst() }
                return (.none, true)
            }
            // The common case, one subscriber, without collecting anything.
            if state.subscribers.count == 1, let id = state.subscribers.keys.first {
                if let waiter = state.subscribers[id]!.waiter {
                    state.subscribers[id]!.waiter = nil
                    return (.one(waiter), false)
                }
                dropped = state.subscribers[id]!.hold(Entry(element, weight: weight, holders: 1), limit: bufferLimit)
                return (.none, true)
            }
            // Subscribers waiting take it now; the others hold it until they take it.
            let holders = state.subscribers.values.count { $0.waiter == nil }
            let entry = Entry(element, weight: weight, holders: holders)
            var waiting: [CheckedContinuation<Element?, Never>] = []
            // The keys copied first: iterating the dictionary while changing it would copy it, and every buffer.
            for id in Array(state.subscribers.keys) {
                if let waiter = state.subscribers[id]!.waiter {
                    state.subscribers[id]!.waiter = nil
                    waiting.append(waiter)
                } else if let old = state.subscribers[id]!.hold(entry, limit: bufferLimit) {
                    droppedByOthers.append(old)
                }
            }
            return (.many(waiting), holders > 0)
        }
        switch waiting {
        case .none: break
        case .one(let waiter): waiter.resume(returning: element)
        case .many(let waiters): for waiter in waiters { waiter.resume(returning: element) }
        }
        if weight > 0, !held { release(weight) }
        if let dropped { droppedByOthers.append(dropped) }
        for entry in droppedByOthers where entry.drop() && entry.weight > 0 { release(entry.weight) }
    }

    /// The subscribers an element is handed to at once.
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
                if let entry, entry.drop(), entry.weight > 0 { release(entry.weight) }
                continuation.resume(returning: entry?.element)
            }
        } onCancel: {
            interrupt(id)
        }
    }

    enum Taken {
        case element(Element)
        case end
        case empty
    }

    /// The next element for subscriber `id` if one waits in its buffer.
    func take(for id: Int) -> Taken {
        let taken = state.withLockedValue { state -> (Entry?, Bool) in
            guard state.subscribers[id] != nil else { return (nil, true) }
            if let entry = state.subscribers[id]!.buffer.popFirst() { return (entry, false) }
            return (nil, state.finished)
        }
        switch taken {
        case (let entry?, _):
            if entry.drop(), entry.weight > 0 { release(entry.weight) }
            return .element(entry.element)
        case (nil, true): return .end
        case (nil, false): return .empty
        }
    }

    /// The task waiting in subscriber `id`'s ``next(for:)`` was cancelled: that wait returns nil, and the
    /// subscription stays (an element handed over in the same instant may go to the cancelled wait).
    func interrupt(_ id: Int) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Element?, Never>? in
            defer { state.subscribers[id]?.waiter = nil }
            return state.subscribers[id]?.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Subscriber `id` stops: what it still held is released.
    func cancel(_ id: Int) {
        let (waiter, held) = state.withLockedValue {
            state -> (CheckedContinuation<Element?, Never>?, CircularBuffer<Entry>) in
            guard let subscriber = state.subscribers.removeValue(forKey: id) else { return (nil, []) }
            return (subscriber.waiter, subscriber.buffer)
        }
        for entry in held where entry.drop() && entry.weight > 0 { release(entry.weight) }
        waiter?.resume(returning: nil)
    }
}
