import Foundation
import Huddle
import HuddleClipboard
import HuddlePasteboard
import HuddleTestSupport
import Synchronization
import Testing

/// A wall clock a test sets by hand (milliseconds since 1970).
final class ManualWallClock: Sendable {
    let now: Mutex<UInt64>

    init(_ now: UInt64) {
        self.now = Mutex(now)
    }

    var reading: @Sendable () -> UInt64 { { self.now.withLock { $0 } } }
}

/// Passing items on between three real sessions on loopback: Ada sends items to Bob only; Bob keeps a clipboard
/// and passes what he takes on to Carol.
@Suite("Passing clipboard items on between sessions", .timeLimit(.minutes(2)))
struct ClipboardRelayTests {
    /// An item stamped far ahead of Bob's clock is taken but not passed on; once his clock has caught up, a newer
    /// one is. Bob's messages to Carol arrive in order, so when Carol has the second item she would already have
    /// the first, had it been passed on.
    @Test func anItemFarAheadOfTheClockIsTakenButNotPassedOn() async throws {
        let start = UInt64(Date().timeIntervalSince1970 * 1000)
        let clock = ManualWallClock(start)
        try await withClipboardPeers(
            ["Ada", "Bob", "Carol"],
            sessionID: "HuddleClipboardRelay",
            pasteboards: ["Bob": RecordingPasteboard(), "Carol": RecordingPasteboard()],
            wallClock: clock.reading
        ) { peers in
            let (ada, bob) = (peers.syncs[0], peers.syncs[1])
            let (bobEvents, carolEvents) = (peers.events[1], peers.events[2])
            _ = try #require(await peers.connectedPeers(1, count: 2))
            // Ada sends on her own session: wait until it, too, has Bob connected (each side of a connection
            // reports it on its own time).
            let bobID = bob.session.peerID
            let adaHasBob = await peers.events[0].contains { event in
                if case .peerConnected(let peer, _) = event { return peer == bobID }
                return false
            }
            try #require(adaHasBob)

            let lead = ClipboardSyncCore.maximumRelayLead + 60_000
            let far = ClipStamp(time: start + lead, counter: 0, origin: ada.session.peerID.rawValue)
            try await ada.session.send(ClipMessage.sync(far, PasteboardItem(text: "far")).encoded(), to: [bobID])
            let takenFar = await bobEvents.contains { event in
                if case .taken(let summary, "Ada") = event { return summary.stamp == far }
                return false
            }
            #expect(takenFar)

            clock.now.withLock { $0 = start + lead }
            let next = ClipStamp(time: start + lead + 1, counter: 0, origin: ada.session.peerID.rawValue)
            try await ada.session.send(ClipMessage.sync(next, PasteboardItem(text: "next")).encoded(), to: [bobID])
            let carolTook = await carolEvents.contains { event in
                if case .taken(let summary, "Bob") = event { return summary.stamp == next }
                return false
            }
            #expect(carolTook)
            let carolSawFar = carolEvents.events.contains { event in
                if case .taken(let summary, _) = event { return summary.stamp == far }
                return false
            }
            #expect(!carolSawFar)
        }
    }
}
