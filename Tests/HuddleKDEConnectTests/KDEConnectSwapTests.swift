import Foundation
import HuddleForeign
import HuddleTestSupport
import Testing

@testable import HuddleKDEConnect

/// Files being sent to a paired device are replaced by links to another file (another local user of a shared
/// directory) after the send began: nothing of the other file leaves. The file on offer was opened before it was
/// offered and is sent as it was; the next one, replaced before its turn, is not sent at all. In memory
/// (``MemoryStreams``).
@Suite struct KDEConnectSwapTests {
    typealias Device = KDEConnectTestDevice

    @Test func filesSwappedForLinksAfterTheSendBeganGiveNothingOfTheFilesTheyPointTo() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let first = scratch.appending("first.txt")
        let second = scratch.appending("second.txt")
        let secret = scratch.appending("secret.txt")
        let firstBytes = Data("first public words 0123".utf8)
        let secretBytes = Data("PRIVATE KEY 0123456789 PRIVATE KEY".utf8)
        try firstBytes.write(to: first)
        try Data("second public words 012".utf8).write(to: second)
        try secretBytes.write(to: secret)
        let inbox = scratch.appending("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: false)
        let streams = MemoryStreams()
        let ada = try await Device.start("Ada", in: scratch, streams: streams)
        let bob = try await Device.start("Bob", in: scratch, streams: streams)
        do {
            _ = try await Device.linkAndPair(bob, ada, aName: "Bob", bName: "Ada")
            let bobAtAda = try #require(await ada.service.peers().first { $0.name == "Bob" })
            let sending = Task { try await ada.service.send(files: [first, second], to: bobAtAda, pin: nil) }
            let offer = try #require(await bob.events.first(where: Device.offer))
            #expect(offer.files.map(\.name) == ["first.txt"])
            for swapped in [first, second] {
                try FileManager.default.removeItem(at: swapped)
                try FileManager.default.createSymbolicLink(at: swapped, withDestinationURL: secret)
            }
            await bob.service.answer(offer, with: .accept(into: inbox))
            let kept = try #require(await bob.events.first(where: Device.received))
            #expect(try Data(contentsOf: kept) == firstBytes)
            await #expect(
                throws: KDEConnectError.payload(
                    "second.txt was replaced by another file since the send began; not sent"
                )
            ) { try await sending.value }
            #expect(try FileManager.default.contentsOfDirectory(atPath: inbox.path) == ["first.txt"])
        } catch {
            await bob.stop()
            await ada.stop()
            throw error
        }
        await bob.stop()
        await ada.stop()
    }
}
