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

    /// A copy made on this clipboard: the watch reports it.
    func copy(_ text: String, sequence: Int) {
        let change = PasteboardChange(
            item: PasteboardItem(text: text),
            types: [.utf8PlainText],
            isSecret: false,
            sequence: sequence
        )
        for watcher in watchers.withLock({ $0 }) { watcher.yield(change) }
    }
}

/// A peer that sends clipboard items faster than anyone copies (`docs/security.md` §5 J2): two sessions on a
/// `MemoryNetwork`; the receiving sync keeps a recording clipboard in step. The sessions' clock, on which the sync
/// paces its writes, moves only when the test moves it.
@Suite("A flood of clipboard items from a peer", .timeLimit(.minutes(1)))
struct ClipboardFloodTests {
    /// A thousand items in a second of the session clock: the clipboard is written at most ten times a second,
    /// never with an older item after a newer one, and ends holding the last item.
    @Test func aThousandItemsASecondAreCoalescedToTenWritesASecond() async throws {
        let pasteboard = RecordingPasteboard()
        let clock = ManualSessionClock()
        try await withClipboardPeers(["Ada", "Bob"], pasteboards: ["Bob": pasteboard], clock: clock) { peers in
            let (ada, bobEvents) = (peers.syncs[0], peers.events[1])
            let bobID = try #require(await peers.connectedPeers(0)?.first)
            _ = try #require(await peers.connectedPeers(1))
            let origin = ada.session.peerID.rawValue
            let time = UInt64(Date().timeIntervalSince1970 * 1000)
            let start = clock.now
            for index in 0..<1000 {
                let stamp = ClipStamp(time: time, counter: UInt32(index), origin: origin)
                let message = ClipMessage.sync(stamp, PasteboardItem(text: "item \(index)"))
                try await ada.session.send(message.encoded(), to: [bobID])
                // Ten items every 10 ms of the session clock.
                if index % 10 == 9 { clock.advance(by: .milliseconds(10)) }
            }
            // Every item is taken (and is what a peer connecting later would get) ...
            let taken = await bobEvents.contains { event in
                if case .taken(let summary, "Ada") = event { return summary.stamp?.counter == 999 }
                return false
            }
            #expect(taken)
            // ... and once the interval since the last write has passed, the newest is written.
            clock.advance(by: .milliseconds(100))
            #expect(await pasteboard.writes.contains { $0.text == "item 999" })
            let elapsed = start.duration(to: clock.now)
            let writes = pasteboard.writes.events
            #expect(writes.last?.text == "item 999")
            // The sync starts its writes at least 100 ms apart by the session clock, all of them within the 1.1 s
            // it moved: so at most 12 of them, however the machine schedules the tasks.
            #expect(writes.count <= Int(elapsed / .milliseconds(100)) + 1, "\(writes.count) writes in \(elapsed)")
            let numbers = writes.compactMap { $0.text.flatMap { Int($0.dropFirst("item ".count)) } }
            #expect(numbers.count == writes.count && numbers == numbers.sorted() && Set(numbers).count == numbers.count)
        }
    }
}
