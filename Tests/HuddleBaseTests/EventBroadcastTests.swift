import NIOConcurrencyHelpers
import Testing

@testable import HuddleBase

/// Events per subscriber, and the receive budget held by the slowest one.
@Suite("Event broadcast")
struct EventBroadcastTests {
    /// A broadcast of strings, each yielded with a hold that weighs its length, and the weights let go of.
    final class Harness: Sendable {
        /// Records its weight when the broadcast lets go of it.
        final class Weight: Sendable {
            let count: Int
            let released: NIOLockedValueBox<[Int]>

            init(_ count: Int, released: NIOLockedValueBox<[Int]>) {
                self.count = count
                self.released = released
            }

            deinit { released.withLockedValue { $0.append(count) } }
        }

        let released = NIOLockedValueBox<[Int]>([])
        let broadcast: EventBroadcast<String>

        init(bufferLimit: Int? = nil) {
            broadcast = EventBroadcast(bufferLimit: bufferLimit)
        }

        func yield(_ text: String) {
            broadcast.yield(text, holding: Weight(text.count, released: released))
        }

        var total: Int { released.withLockedValue { $0.reduce(0, +) } }
    }

    static func all(_ subscription: EventSubscription<String>) async -> [String] {
        var elements: [String] = []
        for await element in subscription { elements.append(element) }
        return elements
    }

    @Test func everySubscriberGetsEveryElementInOrder() async {
        let harness = Harness()
        let first = harness.broadcast.subscribe()
        let second = harness.broadcast.subscribe()
        for text in ["a", "bb", "ccc"] { harness.yield(text) }
        harness.broadcast.finish()
        #expect(await Self.all(first) == ["a", "bb", "ccc"])
        #expect(await Self.all(second) == ["a", "bb", "ccc"])
        #expect(harness.total == 6)
    }

    @Test func theBacklogGoesToTheFirstSubscriberOnly() async {
        let harness = Harness()
        harness.yield("early")
        let first = harness.broadcast.subscribe()
        let second = harness.broadcast.subscribe()
        harness.yield("late")
        harness.broadcast.finish()
        #expect(await Self.all(first) == ["early", "late"])
        #expect(await Self.all(second) == ["late"])
    }

    @Test func aWeightIsReleasedOnlyWhenTheSlowestSubscriberTookIt() async {
        let harness = Harness()
        let fast = harness.broadcast.subscribe()
        let slow = harness.broadcast.subscribe()
        harness.yield("four")
        var fastIterator = fast.makeAsyncIterator()
        #expect(await fastIterator.next() == "four")
        #expect(harness.total == 0)
        var slowIterator = slow.makeAsyncIterator()
        #expect(await slowIterator.next() == "four")
        #expect(harness.released.withLockedValue { $0 } == [4])
    }

    @Test func aSubscriptionThatGoesAwayReleasesWhatItHeld() {
        let harness = Harness()
        var gone: EventSubscription<String>? = harness.broadcast.subscribe()
        harness.yield("held")
        #expect(harness.total == 0)
        #expect(gone != nil)
        gone = nil
        #expect(harness.total == 4)
        // With nobody subscribed any more, a weighed element is released at once.
        harness.yield("none")
        #expect(harness.total == 8)
    }

    @Test func cancellingTheIteratingTaskEndsItsLoopButNotTheSubscription() async {
        let harness = Harness()
        var subscription: EventSubscription<String>? = harness.broadcast.subscribe()
        let reader = Task { [subscription] in await Self.all(subscription!) }
        reader.cancel()
        #expect(await reader.value == [])
        harness.yield("after")
        #expect(harness.total == 0)
        var iterator = subscription!.makeAsyncIterator()
        #expect(await iterator.next() == "after")
        harness.yield("dropped")
        subscription = nil
        _ = iterator  // the iterator still holds it
        #expect(harness.total == 5)
    }

    @Test func aSubscriberHoldsAtMostTheBufferLimitDroppingTheOldest() async {
        let harness = Harness(bufferLimit: 2)
        let subscription = harness.broadcast.subscribe()
        for text in ["a", "bb", "ccc"] { harness.yield(text) }
        #expect(harness.released.withLockedValue { $0 } == [1])
        harness.broadcast.finish()
        #expect(await Self.all(subscription) == ["bb", "ccc"])
        #expect(harness.total == 6)
    }

    @Test func aWaitingSubscriberIsHandedTheElementAtOnce() async {
        let harness = Harness()
        let subscription = harness.broadcast.subscribe()
        let reader = Task {
            var iterator = subscription.makeAsyncIterator()
            return await iterator.next()
        }
        // Yield until the reader has it: it may not be waiting yet, and then the element waits in its buffer.
        harness.yield("x")
        #expect(await reader.value == "x")
        #expect(harness.total == 1)
    }
}
