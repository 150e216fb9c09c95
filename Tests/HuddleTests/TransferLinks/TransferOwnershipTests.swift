import Foundation
import HuddleTestSupport
import HuddleWire
import Testing

@testable import Huddle

/// A transfer's messages count only from the peer it is with (review F18, defence in depth): another connected
/// peer that learned the transfer's ID cannot answer it for the receiver.
@Suite("Transfers belong to their peer")
struct TransferOwnershipTests {
    @Test func anotherPeerCannotDeclineATransferForItsReceiver() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let mallory = try await link.add("mallory", connectedTo: [ada])
            let directory = try scope.directory()
            let file = directory.appending(path: "note.txt")
            try Data("for Bob only".utf8).write(to: file)
            let inbox = directory.appending(path: "inbox")
            try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
            let sending = Task { try await ada.transfers.sendFile(at: file, to: bob.peerID) }
            let offer = try #require(await bob.offer())
            // Mallory answers for Bob with the transfer's ID; Ada must not take it. Mallory's next message, an offer
            // of its own, shows Ada has handled the decline.
            try await mallory.sendRaw(.decline(offer.id, reason: "declined by Mallory"), to: ada)
            let marker = TransferOffer(
                id: .random(),
                name: "marker",
                size: 1,
                resumeKey: Array(repeating: 1, count: 32)
            )
            try await mallory.sendRaw(.offer(marker), to: ada)
            #expect(await ada.offer()?.id == marker.id)
            try await bob.accept(offer, into: inbox)
            #expect(try await sending.value == offer.id)
            #expect(try Data(contentsOf: inbox.appending(path: "note.txt")) == Data("for Bob only".utf8))
        }
    }
}
