import Foundation
import HuddleForeign
import HuddleKDEConnectWire
import HuddleTestSupport
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import HuddleKDEConnect

/// A device ID is public (every announcement carries it) and the protocol only checks that a certificate is named
/// for it: a device is the certificate it paired with. Mallory claims Bob's ID with a key of her own, over real TLS
/// in memory (``MemoryStreams``), while Ada sends to Bob, answers Bob's request to pair, or takes a file Bob
/// offered: each must stay with Bob (docs/threat-model.md, "Foreign peers").
@Suite struct KDEConnectImpostorTests {
    typealias Device = KDEConnectTestDevice
    typealias Running = Device.Running

    static func refused(_ fingerprint: String?) -> (ForeignEvent) -> String? {
        { event in
            if case .fingerprintChanged(let peer, let pinned) = event, peer.fingerprint == fingerprint { return pinned }
            return nil
        }
    }

    static func fingerprint(of running: Running) -> String {
        KDEConnectCertificate(der: running.service.credentials.certificateDER)?.fingerprint ?? ""
    }

    /// Runs `body` with Ada, Bob and Mallory (Bob's ID, her own key), stopping all three however it ends.
    func withThree(
        _ body: (Running, Running, Running, ScratchDirectory) async throws -> Void
    ) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let streams = MemoryStreams()
        let ada = try await Device.start("Ada", in: scratch, streams: streams)
        let bob = try await Device.start("Bob", in: scratch, streams: streams)
        let mallory = try await Device.start("Mallory", in: scratch, claiming: bob.service.deviceId, streams: streams)
        do {
            try await body(ada, bob, mallory, scratch)
        } catch {
            for running in [mallory, bob, ada] { await running.stop() }
            throw error
        }
        for running in [mallory, bob, ada] { await running.stop() }
    }

    @Test func theRestOfASendToAPairedDeviceStaysWithItWhenAnImpostorClaimsItsID() async throws {
        try await withThree { ada, bob, mallory, scratch in
            let (_, adaAtBob) = try await Device.linkAndPair(bob, ada, aName: "Bob", bName: "Ada")
            let bobAtAda = try #require(await ada.service.peers().first { $0.name == "Bob" })
            #expect(ada.service.isPaired(bobAtAda))
            _ = adaAtBob
            let files = try (1...3).map { index -> URL in
                let url = scratch.appending("part\(index).bin")
                try Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* index) }).write(to: url)
                return url
            }
            let inbox = scratch.appending("bob-inbox")
            try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: false)
            let sending = Task { try await ada.service.send(files: files, to: bobAtAda, pin: nil) }
            // Bob is offered the first file; before he takes it, Mallory links with Ada under Bob's ID.
            let first = try #require(await bob.events.first(where: Device.offer))
            Device.dial(ada, from: mallory)
            let pinned = await ada.events.first(
                within: .seconds(20),
                where: Self.refused(Self.fingerprint(of: mallory))
            )
            #expect(pinned == Self.fingerprint(of: bob))
            await bob.service.answer(first, with: .accept(into: inbox))
            for _ in 2...3 {
                bob.events.clear()
                let next = try #require(await bob.events.first(where: Device.offer))
                await bob.service.answer(next, with: .accept(into: inbox))
            }
            try await sending.value
            #expect(await mallory.events.first(within: .milliseconds(200), where: Device.offer) == nil)
            for url in files {
                let kept = try Data(contentsOf: inbox.appendingPathComponent(url.lastPathComponent))
                #expect(kept == (try Data(contentsOf: url)))
            }
            #expect(ada.service.isPaired(bobAtAda))
        }
    }

    @Test func aPairingAnswerIsForTheCertificateTheQuestionShowed() async throws {
        try await withThree { ada, bob, mallory, _ in
            Device.dial(ada, from: bob)
            let adaAtBob = try #require(await bob.events.first(where: Device.found("Ada")))
            let bobAtAda = try #require(await ada.events.first(where: Device.found("Bob")))
            let bobAsking = Task { try? await bob.service.requestPairing(with: adaAtBob) }
            let asked = try #require(await ada.events.first(where: Device.pairingRequest(from: "Bob")))
            #expect(asked.fingerprint == Self.fingerprint(of: bob))

            // Before Ada answers, Mallory links under Bob's ID and asks to pair herself.
            ada.events.clear()
            Device.dial(ada, from: mallory)
            let adaAtMallory = try #require(await mallory.events.first(where: Device.found("Ada")))
            let malloryAsking = Task { try? await mallory.service.requestPairing(with: adaAtMallory) }
            let second = try #require(await ada.events.first(where: Device.pairingRequest(from: "Mallory")))
            #expect(second.fingerprint == Self.fingerprint(of: mallory))

            // Ada answers yes to the question that showed Bob's certificate.
            ada.service.answerPairing(bobAtAda, accept: true)
            ada.service.answerPairing(second, accept: false)
            _ = await malloryAsking.value
            bobAsking.cancel()
            let pins = try ada.service.pins.load().pins.map(\.fingerprint)
            #expect(!pins.contains(Self.fingerprint(of: mallory)))
            #expect(!ada.service.isPaired(second))
            #expect(!mallory.service.isPaired(adaAtMallory))
        }
    }

    @Test func anAcceptedFileComesFromTheDeviceThatOfferedIt() async throws {
        try await withThree { ada, bob, mallory, scratch in
            let (adaAtBob, _) = try await Device.linkAndPair(ada, bob, aName: "Ada", bName: "Bob")
            let photo = scratch.appending("photo.jpg")
            let bytes = Data((0..<80_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try bytes.write(to: photo)
            let sending = Task { try await bob.service.send(files: [photo], to: adaAtBob, pin: nil) }
            let offer = try #require(await ada.events.first(where: Device.offer))

            // Mallory claims Bob's ID before Ada accepts.
            Device.dial(ada, from: mallory)
            #expect(
                await ada.events.first(within: .seconds(20), where: Self.refused(Self.fingerprint(of: mallory))) != nil
            )
            let inbox = scratch.appending("ada-inbox")
            try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: false)
            await ada.service.answer(offer, with: .accept(into: inbox))
            try await sending.value
            let kept = try #require(await ada.events.first(where: Device.received))
            #expect(try Data(contentsOf: kept) == bytes)
        }
    }
}
