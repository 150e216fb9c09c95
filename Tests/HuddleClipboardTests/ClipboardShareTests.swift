import Foundation
import Huddle
import HuddleClipboard
import HuddlePasteboard
import HuddleTransport
import Synchronization
import Testing

/// Deliberate shares between two real sessions on loopback (TLS, the session's framing, in-memory transfers for
/// large items); no clipboard is needed on either side.
@Suite("Sharing clipboard items between two sessions on loopback")
struct ClipboardShareTests {
    /// Reads a sync's events in the background; tests wait for the one they need.
    final class Collector: Sendable {
        final class Log: Sendable {
            let events = Mutex<[ClipboardSyncEvent]>([])
        }

        let log = Log()
        let task: Task<Void, Never>

        init(_ sync: ClipboardSync) {
            let log = self.log
            task = Task { for await event in sync.events { log.events.withLock { $0.append(event) } } }
        }

        func wait<T>(seconds: Double = 20, _ match: (ClipboardSyncEvent) -> T?) async -> T? {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while ContinuousClock.now < deadline {
                let seen = log.events.withLock { $0 }
                if let found = seen.lazy.compactMap(match).first { return found }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return nil
        }
    }

    /// Two sessions that trust on first use, each with a sync: Ada's exchanges only shares; Bob's also keeps
    /// `bobPasteboard` in step when one is given.
    static func pair(
        bobPasteboard: (any GeneralPasteboard)? = nil
    ) async throws -> (ClipboardSync, ClipboardSync, Collector, Collector, [Task<Void, any Error>]) {
        let directory = InMemoryPeerDirectory()
        var syncs: [ClipboardSync] = []
        for name in ["Ada", "Bob"] {
            var configuration = PeerSessionConfiguration()
            configuration.listenHost = "127.0.0.1"
            configuration.trustsOnFirstUse = true
            configuration.transfers.maximumInMemorySize = 32 << 20
            let session = try await PeerSession(
                sessionID: "HuddleClipboard",
                displayName: name,
                mode: .peer,
                configuration: configuration,
                directory: directory,
                identity: try DeviceIdentity.ephemeral(),
                trustStore: TrustStore()
            )
            try await session.start()
            let pasteboard = name == "Bob" ? bobPasteboard : nil
            var sync = ClipboardSyncConfiguration()
            sync.syncs = pasteboard != nil
            syncs.append(ClipboardSync(session: session, pasteboard: pasteboard, configuration: sync))
        }
        let collectors = syncs.map(Collector.init)
        let runs = syncs.map { sync in Task { try await sync.run() } }
        return (syncs[0], syncs[1], collectors[0], collectors[1], runs)
    }

    static func connected(_ sync: ClipboardSync) async -> PeerID? {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let peer = await sync.connectedPeers.first { return peer }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    @Test func aDeclineReachesTheSharerAndATakenItemArrivesWhole() async throws {
        let (ada, bob, _, bobEvents, runs) = try await Self.pair()
        let bobID = try #require(await Self.connected(ada))
        _ = try #require(await Self.connected(bob))
        // Declined: the sharer hears the reason.
        let declined = Task { try await ada.share(PasteboardItem(text: "no thanks"), to: bobID) }
        let first = try #require(
            await bobEvents.wait { event -> ClipShareOffer? in
                if case .shareOffered(let offer) = event, offer.item.string == "no thanks" { return offer }
                return nil
            }
        )
        #expect(first.peerName == "Ada")
        await bob.declineShare(first, reason: "not now")
        await #expect(throws: ClipboardSyncError.declined("not now")) { try await declined.value }
        // Taken: a 3 MiB image goes as an in-memory transfer and arrives byte for byte, with progress.
        var image = PasteboardItem(type: .png, data: Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        image.setData(Data("a picture".utf8), for: .utf8PlainText)
        let sent = image
        let taken = Task { try await ada.share(sent, to: bobID) }
        let second = try #require(
            await bobEvents.wait { event -> ClipShareOffer? in
                if case .shareOffered(let offer) = event, offer.item.data(for: .png) != nil { return offer }
                return nil
            }
        )
        #expect(await bob.acceptShare(second) == image)
        try await taken.value
        let progressed = await bobEvents.wait { event -> Bool? in
            if case .progress(let progress, "Ada") = event, progress.completed == progress.total { return true }
            return nil
        }
        #expect(progressed == true)
        for run in runs { run.cancel() }
        await ada.session.stop()
        await bob.session.stop()
    }

    @Test func secretAndOversizedItemsNeverLeave() async throws {
        let (ada, bob, _, _, runs) = try await Self.pair()
        let bobID = try #require(await Self.connected(ada))
        await #expect(throws: ClipboardSyncError.refused("it is marked secret by a password manager")) {
            try await ada.share(PasteboardItem(text: "hunter2").markedSecret(), to: bobID)
        }
        let huge = PasteboardItem(type: .png, data: Data(count: ClipboardItemFilter.defaultMaximumBytes + 1))
        await #expect(throws: ClipboardSyncError.refused("it is 16 MiB, over the 16 MiB limit")) {
            try await ada.share(huge, to: bobID)
        }
        for run in runs { run.cancel() }
        await ada.session.stop()
        await bob.session.stop()
    }
}
