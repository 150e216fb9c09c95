import Foundation
import Huddle
import HuddleClipboard
import HuddlePasteboard
import HuddleTestSupport
import Testing

/// Deliberate shares between two real sessions on loopback (TLS, the session's framing, in-memory transfers for
/// large items); no clipboard is needed on either side.
@Suite("Sharing clipboard items between two sessions in memory", .timeLimit(.minutes(2)))
struct ClipboardShareTests {
    @Test func aDeclineReachesTheSharerAndATakenItemArrivesWhole() async throws {
        try await withClipboardPeers(["Ada", "Bob"]) { peers in
            let (ada, bob, bobEvents) = (peers.syncs[0], peers.syncs[1], peers.events[1])
            let bobID = try #require(await peers.connectedPeers(0)?.first)
            _ = try #require(await peers.connectedPeers(1))
            // Declined: the sharer hears the reason.
            let declined = Task { try await ada.share(PasteboardItem(text: "no thanks"), to: bobID) }
            let first = try #require(
                await bobEvents.first { event -> ClipShareOffer? in
                    if case .shareOffered(let offer) = event, offer.item.string == "no thanks" { return offer }
                    return nil
                }
            )
            #expect(first.peerName == "Ada")
            await bob.declineShare(first, reason: "not now")
            await #expect(throws: ClipboardSyncError.declined("not now")) { try await declined.value }
            // Taken: a 3 MiB image goes as an in-memory transfer and arrives byte for byte, with progress.
            var image = PasteboardItem(
                type: .png,
                data: Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            )
            image.setData(Data("a picture".utf8), for: .utf8PlainText)
            let sent = image
            let taken = Task { try await ada.share(sent, to: bobID) }
            let second = try #require(
                await bobEvents.first { event -> ClipShareOffer? in
                    if case .shareOffered(let offer) = event, offer.item.data(for: .png) != nil { return offer }
                    return nil
                }
            )
            #expect(await bob.acceptShare(second) == image)
            try await taken.value
            let progressed = await bobEvents.contains { event in
                if case .progress(let progress, "Ada") = event { return progress.completed == progress.total }
                return false
            }
            #expect(progressed)
        }
    }

    @Test func secretAndOversizedItemsNeverLeave() async throws {
        try await withClipboardPeers(["Ada", "Bob"]) { peers in
            let ada = peers.syncs[0]
            let bobID = try #require(await peers.connectedPeers(0)?.first)
            await #expect(throws: ClipboardSyncError.refused("it is marked secret by a password manager")) {
                try await ada.share(PasteboardItem(text: "hunter2").markedSecret(), to: bobID)
            }
            let huge = PasteboardItem(type: .png, data: Data(count: ClipboardItemFilter.defaultMaximumBytes + 1))
            await #expect(throws: ClipboardSyncError.refused("it is 16 MiB, over the 16 MiB limit")) {
                try await ada.share(huge, to: bobID)
            }
        }
    }
}
