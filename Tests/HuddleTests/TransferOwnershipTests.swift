import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// A transfer's messages count only from the peer it is with (review F18, defence in depth): another connected
/// peer that learned the transfer's ID cannot answer it for the receiver.
@Suite("Transfers belong to their peer", .timeLimit(.minutes(2)))
struct TransferOwnershipTests {
    @Test(.timeLimit(.minutes(1))) func anotherPeerCannotDeclineATransferForItsReceiver() async throws {
        try await withTestScope { scope in
            let probes = try await scope.sessions(["Ada", "Bob", "Mallory"]) { $0.trustsOnFirstUse = true }
            let (ada, bob, mallory) = (probes[0], probes[1], probes[2])
            let bobID = try #require(await ada.found(named: "Bob")).id
            let adaAtMallory = try #require(await mallory.found(named: "Ada")).id
            try await ada.session.connect(to: bobID)
            try await mallory.session.connect(to: adaAtMallory)
            let directory = try scope.directory()
            let file = directory.appending(path: "note.txt")
            try Data("for Bob only".utf8).write(to: file)
            let inbox = directory.appending(path: "inbox")
            try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
            let sending = Task { try await ada.session.sendFile(at: file, to: bobID) }
            let offer = try #require(await bob.offer())
            // Mallory answers for Bob with the transfer's ID; Ada must not take it.
            await mallory.session.transfers.sendResourceNow(
                .decline(offer.id, reason: "declined by Mallory"),
                to: adaAtMallory
            )
            try await mallory.session.send(Array("after the decline".utf8), to: [adaAtMallory])
            let malloryAtAda = try #require(await ada.found(named: "Mallory")).id
            #expect(await ada.message(from: malloryAtAda, equalTo: "after the decline"))
            try await bob.session.acceptTransfer(offer, into: inbox)
            #expect(try await sending.value == offer.id)
            #expect(try Data(contentsOf: inbox.appending(path: "note.txt")) == Data("for Bob only".utf8))
        }
    }
}
