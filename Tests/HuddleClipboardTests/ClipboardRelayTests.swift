import Foundation
import Huddle
import HuddleClipboard
import HuddlePasteboard
import HuddleTransport
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
@Suite("Passing clipboard items on between sessions")
struct ClipboardRelayTests {
    /// An item stamped far ahead of Bob's clock is taken but not passed on; once his clock has caught up, a newer
    /// one is. Bob's messages to Carol arrive in order, so when Carol has the second item she would already have
    /// the first, had it been passed on.
    @Test(.timeLimit(.minutes(1)))
    func anItemFarAheadOfTheClockIsTakenButNotPassedOn() async throws {
        let start = UInt64(Date().timeIntervalSince1970 * 1000)
        let clock = ManualWallClock(start)
        let directory = InMemoryPeerDirectory()
        var syncs: [ClipboardSync] = []
        for name in ["Ada", "Bob", "Carol"] {
            var configuration = PeerSessionConfiguration()
            configuration.listenHost = "127.0.0.1"
            configuration.trustsOnFirstUse = true
            let session = try await PeerSession(
                sessionID: "HuddleClipboardRelay",
                displayName: name,
                mode: .peer,
                configuration: configuration,
                directory: directory,
                identity: try DeviceIdentity.ephemeral(),
                trustStore: TrustStore()
            )
            try await session.start()
            let pasteboard: (any GeneralPasteboard)? = name == "Ada" ? nil : RecordingPasteboard()
            var sync = ClipboardSyncConfiguration()
            sync.syncs = pasteboard != nil
            syncs.append(
                ClipboardSync(session: session, pasteboard: pasteboard, configuration: sync, wallClock: clock.reading)
            )
        }
        let (ada, bob, carol) = (syncs[0], syncs[1], syncs[2])
        let bobEvents = ClipboardShareTests.Collector(bob)
        let carolEvents = ClipboardShareTests.Collector(carol)
        let runs = syncs.map { sync in Task { try await sync.run() } }
        defer { for run in runs { run.cancel() } }
        let deadline = ContinuousClock.now + .seconds(30)
        while await bob.connectedPeers.count < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(await bob.connectedPeers.count == 2)
        let bobID = bob.session.peerID

        let lead = ClipboardSyncCore.maximumRelayLead + 60_000
        let far = ClipStamp(time: start + lead, counter: 0, origin: ada.session.peerID.rawValue)
        try await ada.session.send(ClipMessage.sync(far, PasteboardItem(text: "far")).encoded(), to: [bobID])
        let takenFar = await bobEvents.wait { event -> Bool? in
            if case .taken(let summary, "Ada") = event, summary.stamp == far { return true }
            return nil
        }
        #expect(takenFar == true)

        clock.now.withLock { $0 = start + lead }
        let next = ClipStamp(time: start + lead + 1, counter: 0, origin: ada.session.peerID.rawValue)
        try await ada.session.send(ClipMessage.sync(next, PasteboardItem(text: "next")).encoded(), to: [bobID])
        let carolTook = await carolEvents.wait { event -> Bool? in
            if case .taken(let summary, "Bob") = event, summary.stamp == next { return true }
            return nil
        }
        #expect(carolTook == true)
        let carolSawFar = carolEvents.log.events.withLock { events in
            events.contains { event in
                if case .taken(let summary, _) = event { return summary.stamp == far }
                return false
            }
        }
        #expect(!carolSawFar)
        for sync in syncs { await sync.session.stop() }
    }
}
