import Foundation
import Huddle
import HuddleClipboard
import HuddlePasteboard
import HuddleTestSupport
import Synchronization
import Testing

/// A clipboard that records each write and when it started, and takes a moment per write like a real backend.
/// Its watch never reports a change (and never ends, which would end the sync's run).
final class RecordingPasteboard: GeneralPasteboard {
    struct Write: Sendable {
        var started: ContinuousClock.Instant
        var text: String?
    }

    /// Every write, in the order they started.
    let writes = EventRecorder<Write>()
    private let watchers = Mutex<[AsyncStream<PasteboardChange>.Continuation]>([])

    var backendDescription: String { "recording" }

    func types(in selection: PasteboardSelection) async throws -> [PasteboardType] { [] }

    func data(for type: PasteboardType, in selection: PasteboardSelection) async throws -> Data { Data() }

    func write(_ item: PasteboardItem, to selection: PasteboardSelection) async throws {
        writes.record(Write(started: .now, text: item.string))
        // A real backend's write takes a moment; newer items arrive meanwhile (the sync's busy-writer path). This
        // is the backend's behaviour, not a wait for an outcome.
        try await Task.sleep(for: .milliseconds(5))
    }

    func changes(of selection: PasteboardSelection) throws -> AsyncStream<PasteboardChange> {
        let (stream, continuation) = AsyncStream<PasteboardChange>.makeStream()
        watchers.withLock { $0.append(continuation) }
        return stream
    }
}

/// A peer that sends clipboard items faster than anyone copies (`docs/security.md` §5 J2): two real sessions on
/// loopback; the receiving sync keeps a recording clipboard in step.
@Suite("A flood of clipboard items from a peer", .tags(.real), .timeLimit(.minutes(2)))
struct ClipboardFloodTests {
    /// A thousand items in about a second: the clipboard is written at most ten times a second, never with an
    /// older item after a newer one, and ends holding the last item.
    @Test func aThousandItemsASecondAreCoalescedToTenWritesASecond() async throws {
        let pasteboard = RecordingPasteboard()
        try await withClipboardPeers(["Ada", "Bob"], pasteboards: ["Bob": pasteboard]) { peers in
            let (ada, bobEvents) = (peers.syncs[0], peers.events[1])
            let bobID = try #require(await peers.connectedPeers(0)?.first)
            _ = try #require(await peers.connectedPeers(1))
            let origin = ada.session.peerID.rawValue
            let time = UInt64(Date().timeIntervalSince1970 * 1000)
            let start = ContinuousClock.now
            for index in 0..<1000 {
                let stamp = ClipStamp(time: time, counter: UInt32(index), origin: origin)
                let message = ClipMessage.sync(stamp, PasteboardItem(text: "item \(index)"))
                try await ada.session.send(message.encoded(), to: [bobID])
                // The flood's pace (ten items every 10 ms), so that it lasts about a second: this shapes the input
                // and waits for no outcome.
                if index % 10 == 9 { try await Task.sleep(until: start + .milliseconds(index + 1), clock: .continuous) }
            }
            let last = await pasteboard.writes.contains { $0.text == "item 999" }
            let elapsed = start.duration(to: .now)
            #expect(last)
            let writes = pasteboard.writes.events
            #expect(writes.last?.text == "item 999")
            // The sync starts its writes at least 100 ms apart by its own clock, all of them after `start` and
            // before the last one was seen here: so at most elapsed / 100 ms + 1 of them, however loaded the
            // machine. (The gap between two calls as this backend stamps them also holds each call's hop off the
            // sync's actor, which a loaded machine stretches for one call and not the next: not checked.)
            #expect(writes.count <= Int(elapsed / .milliseconds(100)) + 1, "\(writes.count) writes in \(elapsed)")
            let numbers = writes.compactMap { $0.text.flatMap { Int($0.dropFirst("item ".count)) } }
            #expect(numbers.count == writes.count && numbers == numbers.sorted() && Set(numbers).count == numbers.count)
            // Every item was still taken (and is what a peer connecting later would get).
            let taken = await bobEvents.contains { event in
                if case .taken(let summary, "Ada") = event { return summary.stamp?.counter == 999 }
                return false
            }
            #expect(taken)
        }
    }
}
