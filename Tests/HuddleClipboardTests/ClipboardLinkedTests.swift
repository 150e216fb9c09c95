import Foundation
import Huddle
import HuddleClipboard
import HuddlePasteboard
import HuddleTestSupport
import Synchronization
import Testing

/// What a linked device (a KDE Connect phone) was given: each text, with the time it was copied when it went as
/// the current item of a new link.
final class LinkedDevice: Sendable {
    struct Delivery: Sendable, Equatable {
        var text: String
        var copiedAt: UInt64?
    }

    let deliveries = EventRecorder<Delivery>()

    var deliver: @Sendable (String, UInt64?) async -> Void {
        { text, copiedAt in self.deliveries.record(Delivery(text: text, copiedAt: copiedAt)) }
    }

    /// Waits for the next delivery after the first `count`.
    func delivery(after count: Int) async -> Delivery? {
        var seen = 0
        return await deliveries.first(within: .seconds(30)) { delivery -> Delivery? in
            seen += 1
            return seen > count ? delivery : nil
        }
    }
}

/// A device that speaks another protocol, linked to Ada's sync: its clipboard is kept in step through Ada, with Bob
/// (a Huddle peer) on the other side.
@Suite("Clipboards linked through another protocol", .timeLimit(.minutes(2)))
struct ClipboardLinkedTests {
    /// The phone's copy lands on Ada's clipboard and reaches Bob; Bob's copy reaches the phone; the phone's echo of
    /// Bob's item is not a new copy (Bob takes nothing from it); the phone never gets its own copy back.
    @Test func copiesGoBothWaysAndAnEchoIsNotANewCopy() async throws {
        let (adaBoard, bobBoard) = (RecordingPasteboard(), RecordingPasteboard())
        try await withClipboardPeers(
            ["Ada", "Bob"],
            sessionID: "HuddleClipboardLinked",
            pasteboards: ["Ada": adaBoard, "Bob": bobBoard]
        ) { peers in
            let (ada, bobEvents) = (peers.syncs[0], peers.events[1])
            _ = try #require(await peers.connectedPeers(0))
            _ = try #require(await peers.connectedPeers(1))
            let phone = LinkedDevice()
            await ada.linkClipboard("kde:phone", name: "Phone", deliver: phone.deliver)
            #expect(await ada.linkedClipboards == ["kde:phone"])

            await ada.linkedClipboardChanged("from the phone", copiedAt: nil, from: "kde:phone")
            let adaWrote = await adaBoard.writes.first(within: .seconds(30)) { $0.text }
            #expect(adaWrote == "from the phone")
            #expect(await bobTook(bobEvents, count: 1) == ["from the phone".utf8.count])

            bobBoard.copy("from Bob", sequence: 1)
            #expect(await phone.delivery(after: 0) == .init(text: "from Bob", copiedAt: nil))
            await ada.linkedClipboardChanged("from Bob", copiedAt: nil, from: "kde:phone")
            await ada.linkedClipboardChanged("later on the phone", copiedAt: nil, from: "kde:phone")
            // Had the echo been taken as a copy, Bob would have taken "from Bob" again before this one.
            #expect(
                await bobTook(bobEvents, count: 2) == ["from the phone".utf8.count, "later on the phone".utf8.count]
            )
            #expect(phone.deliveries.events == [.init(text: "from Bob", copiedAt: nil)])
        }
    }

    /// A new link gets the current item with the time it was copied; the device's own item from before that is
    /// not taken, one copied after it is.
    @Test func aLinkStartsWithTheNewerOfTheTwoItems() async throws {
        let start = UInt64(Date().timeIntervalSince1970 * 1000)
        let clock = ManualWallClock(start)
        let board = RecordingPasteboard()
        try await withClipboardPeers(
            ["Ada"],
            sessionID: "HuddleClipboardLinkStart",
            pasteboards: ["Ada": board],
            wallClock: clock.reading
        ) { peers in
            let ada = peers.syncs[0]
            let first = LinkedDevice()
            await ada.linkClipboard("kde:first", name: "First", deliver: first.deliver)
            await ada.linkedClipboardChanged("copied on First", copiedAt: nil, from: "kde:first")
            let stamp = try #require(await ada.currentStamp)
            #expect(stamp.time == start)
            #expect(first.deliveries.events.isEmpty)

            clock.now.withLock { $0 = start + 5_000 }
            let second = LinkedDevice()
            await ada.linkClipboard("kde:second", name: "Second", deliver: second.deliver)
            #expect(second.deliveries.events == [.init(text: "copied on First", copiedAt: start)])
            await ada.linkedClipboardChanged("older on Second", copiedAt: start - 1_000, from: "kde:second")
            #expect(await ada.currentStamp == stamp)
            await ada.linkedClipboardChanged("newer on Second", copiedAt: start + 1_000, from: "kde:second")
            #expect(await ada.currentStamp?.time == start + 5_000)
            #expect(first.deliveries.events == [.init(text: "newer on Second", copiedAt: nil)])

            await ada.unlinkClipboard("kde:first")
            await ada.linkedClipboardChanged("from an unlinked device", copiedAt: nil, from: "kde:first")
            #expect(await ada.currentStamp?.time == start + 5_000)
            #expect(await ada.linkedClipboards == ["kde:second"])
        }
    }

    /// The sizes of the items Bob has taken from Ada, once he has taken `count` (the test's texts differ in size).
    func bobTook(_ events: EventRecorder<ClipboardSyncEvent>, count: Int) async -> [Int]? {
        var sizes: [Int] = []
        return await events.first(within: .seconds(30)) { event -> [Int]? in
            guard case .taken(let summary, "Ada") = event else { return nil }
            sizes.append(summary.byteCount)
            return sizes.count == count ? sizes : nil
        }
    }
}
