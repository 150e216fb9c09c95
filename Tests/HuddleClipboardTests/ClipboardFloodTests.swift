import Foundation
import Huddle
import HuddleClipboard
import HuddlePasteboard
import Synchronization
import Testing

/// A clipboard that records each write and when it started, and takes a moment per write like a real backend.
/// Its watch never reports a change (and never ends, which would end the sync's run).
final class RecordingPasteboard: GeneralPasteboard {
    struct Write: Sendable {
        var started: ContinuousClock.Instant
        var text: String?
    }

    let writes = Mutex<[Write]>([])
    private let watchers = Mutex<[AsyncStream<PasteboardChange>.Continuation]>([])

    var backendDescription: String { "recording" }

    func types(in selection: PasteboardSelection) async throws -> [PasteboardType] { [] }

    func data(for type: PasteboardType, in selection: PasteboardSelection) async throws -> Data { Data() }

    func write(_ item: PasteboardItem, to selection: PasteboardSelection) async throws {
        writes.withLock { $0.append(Write(started: .now, text: item.string)) }
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
@Suite("A flood of clipboard items from a peer")
struct ClipboardFloodTests {
    /// A thousand items in about a second: the clipboard is written at most ten times a second, never with an
    /// older item after a newer one, and ends holding the last item.
    @Test func aThousandItemsASecondAreCoalescedToTenWritesASecond() async throws {
        let pasteboard = RecordingPasteboard()
        let (ada, bob, _, bobEvents, runs) = try await ClipboardShareTests.pair(bobPasteboard: pasteboard)
        let bobID = try #require(await ClipboardShareTests.connected(ada))
        _ = try #require(await ClipboardShareTests.connected(bob))
        let origin = ada.session.peerID.rawValue
        let time = UInt64(Date().timeIntervalSince1970 * 1000)
        let start = ContinuousClock.now
        for index in 0..<1000 {
            let stamp = ClipStamp(time: time, counter: UInt32(index), origin: origin)
            let message = ClipMessage.sync(stamp, PasteboardItem(text: "item \(index)"))
            try await ada.session.send(message.encoded(), to: [bobID])
            if index % 10 == 9 { try await Task.sleep(for: .milliseconds(10)) }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while pasteboard.writes.withLock({ $0.last?.text }) != "item 999", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let elapsed = start.duration(to: .now)
        let writes = pasteboard.writes.withLock { $0 }
        #expect(writes.last?.text == "item 999")
        let gaps = zip(writes, writes.dropFirst()).map { $0.started.duration(to: $1.started) }
        // The sync spaces the starts of its calls 100 ms apart; this backend stamps each call when it runs, after a
        // hop off the sync's actor that a loaded machine can stretch for one call and not the next.
        #expect(gaps.allSatisfy { $0 >= .milliseconds(60) }, "\(gaps)")
        #expect(writes.count <= Int(elapsed / .milliseconds(100)) + 1, "\(writes.count) writes in \(elapsed)")
        let numbers = writes.compactMap { $0.text.flatMap { Int($0.dropFirst("item ".count)) } }
        #expect(numbers.count == writes.count && numbers == numbers.sorted() && Set(numbers).count == numbers.count)
        // Every item was still taken (and is what a peer connecting later would get).
        let taken = await bobEvents.wait { event -> Bool? in
            if case .taken(let summary, "Ada") = event, summary.stamp?.counter == 999 { return true }
            return nil
        }
        #expect(taken == true)
        for run in runs { run.cancel() }
        await ada.session.stop()
        await bob.session.stop()
    }
}
