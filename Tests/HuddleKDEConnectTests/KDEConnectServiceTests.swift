import Crypto
import Foundation
import HuddleForeign
import HuddleKDEConnectWire
import HuddleTestSupport
import HuddleTransport
import NIOConcurrencyHelpers
import Testing
import X509

@testable import HuddleKDEConnect

/// Two KDE Connect services in one process over real TLS in memory (``MemoryStreams``), speaking protocol
/// version 8 to each other (the identity again inside TLS, the verification key with the request's timestamp):
/// what the Debian peer, at version 7, cannot show. Every wait has a deadline.
@Suite struct KDEConnectServiceTests {
    typealias Running = RunningService<KDEConnectService, ForeignEvent>
    let streams = MemoryStreams()

    func start(_ name: String, in scratch: ScratchDirectory) async throws -> Running {
        try await KDEConnectTestDevice.start(name, in: scratch, streams: streams)
    }

    static func found(_ name: String) -> (ForeignEvent) -> ForeignPeer? { KDEConnectTestDevice.found(name) }

    @Test func twoVersion8DevicesLinkPairWithTheSameTimestampedKeyAndShareTextsAndFiles() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let ada = try await start("Ada", in: scratch)
        let bob = try await start("Bob", in: scratch)
        do {
            try await linkPairAndShare(ada, bob, scratch)
        } catch {
            await bob.stop()
            await ada.stop()
            throw error
        }
        await bob.stop()
        await ada.stop()
    }

    func linkPairAndShare(_ ada: Running, _ bob: Running, _ scratch: ScratchDirectory) async throws {
        // Bob hears Ada's announcement (handed to it here) and dials her.
        var announcement = ada.service.ownIdentity
        announcement.tcpPort = ada.port
        bob.service.announcementArrived(announcement.packet.line(), from: "127.0.0.1")
        let adaAtBob = try #require(await bob.events.first(where: Self.found("Ada")))
        let bobAtAda = try #require(await ada.events.first(where: Self.found("Bob")))
        #expect(adaAtBob.id.value == ada.service.deviceId)
        #expect(adaAtBob.fingerprint?.count == 64)
        #expect(!ada.service.isPaired(bobAtAda))

        let pairing = Task { try await bob.service.requestPairing(with: adaAtBob) }
        let asked = try #require(
            await ada.events.first { event -> String? in
                if case .pairingRequested(let peer, let key) = event, peer.name == "Bob" { return key }
                return nil
            }
        )
        let shown = try #require(
            await bob.events.first { event -> String? in
                if case .pairingStarted(_, let key) = event { return key }
                return nil
            }
        )
        #expect(asked == shown)
        #expect(asked.count == 8 && asked == asked.uppercased())
        ada.service.answerPairing(bobAtAda, accept: true)
        // Ada's yes pairs nothing on Bob's side until Bob's user confirms the same key.
        let confirming = try #require(
            await bob.events.first(where: KDEConnectTestDevice.pairingConfirmation(of: "Ada"))
        )
        #expect(confirming == shown)
        #expect(!bob.service.isPaired(adaAtBob))
        bob.service.answerPairing(adaAtBob, accept: true)
        try await pairing.value
        #expect(bob.service.isPaired(adaAtBob))
        #expect(ada.service.isPaired(bobAtAda))

        try await bob.service.send(text: "hello, Ada", to: adaAtBob, pin: nil)
        let text = await ada.events.first { event -> String? in
            if case .textReceived(let text, let from) = event, from.name == "Bob" { return text }
            return nil
        }
        #expect(text == "hello, Ada")
        try await shareClipboards(ada, bob, bobAtAda: bobAtAda, adaAtBob: adaAtBob)

        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let source = scratch.appending("report.pdf")
        try Data(bytes).write(to: source)
        let inbox = scratch.appending("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: false)
        let sending = Task { try await bob.service.send(files: [source], to: adaAtBob, pin: nil) }
        let offer = try #require(
            await ada.events.first { event -> ForeignOffer? in
                if case .offered(let offer) = event { return offer }
                return nil
            }
        )
        #expect(offer.files.map(\.name) == ["report.pdf"])
        #expect(offer.files.map(\.size) == [200_000])
        await ada.service.answer(offer, with: .accept(into: inbox))
        try await sending.value
        let kept = try #require(
            await ada.events.first { event -> URL? in
                if case .received(_, _, let url) = event { return url }
                return nil
            }
        )
        #expect(try Data(contentsOf: kept) == Data(bytes))
        // Bob's link to Ada, and Ada's connection to the file's port: both through the memory, none on a socket.
        #expect(streams.connections == 2)
    }

    /// A device that says yes at once pairs nothing by itself: the send waits for the user here to confirm the
    /// key, and a "no" sends nothing and tells the device.
    @Test func aSendToADeviceThatAcceptsAtOnceWaitsForTheUserHereToConfirmTheKey() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let ada = try await start("Ada", in: scratch)
        let bob = try await start("Bob", in: scratch)
        do {
            KDEConnectTestDevice.dial(ada, from: bob)
            let bobAtAda = try #require(await ada.events.first(where: Self.found("Bob")))
            let adaAtBob = try #require(await bob.events.first(where: Self.found("Ada")))
            let source = scratch.appending("note.txt")
            try Data("for Bob".utf8).write(to: source)
            let sending = Task { try await ada.service.send(files: [source], to: bobAtAda, pin: nil) }
            _ = try #require(await bob.events.first(where: KDEConnectTestDevice.pairingRequest(from: "Ada")))
            bob.service.answerPairing(adaAtBob, accept: true)
            _ = try #require(await ada.events.first(where: KDEConnectTestDevice.pairingConfirmation(of: "Bob")))
            #expect(!ada.service.isPaired(bobAtAda))
            ada.service.answerPairing(bobAtAda, accept: false)
            await #expect(throws: KDEConnectError.self) { try await sending.value }
            #expect(!ada.service.isPaired(bobAtAda))
            // Bob is told: his side is unpaired again, and no file was offered to him.
            let ended = await bob.events.first { event -> String? in
                if case .pairingEnded(let peer, let reason) = event, peer.name == "Ada" { return reason }
                return nil
            }
            #expect(ended == "Ada unpaired")
            #expect(!bob.events.events.contains { KDEConnectTestDevice.offer($0) != nil })
        } catch {
            await bob.stop()
            await ada.stop()
            throw error
        }
        await bob.stop()
        await ada.stop()
    }

    @Test func aCertificateNotNamedForItsDeviceIDIsReadWithItsKeyAndName() throws {
        let identity = try DeviceIdentity.ephemeral()
        let der = try SelfSignedCertificate.issue(
            subject: try DistinguishedName { CommonName("someone-else") },
            key: identity.privateKey
        )
        let certificate = try #require(KDEConnectCertificate(der: der))
        #expect(certificate.commonName == "someone-else")
        #expect(certificate.subjectPublicKeyInfo == Array(identity.privateKey.publicKey.derRepresentation))
        #expect(certificate.fingerprint.count == 64)
    }

    /// Clipboards of paired devices: a fresh copy arrives without a time; the item sent as a link starts carries
    /// the time it was copied; a connect packet whose time is 0 ("not known") is not reported.
    func shareClipboards(_ ada: Running, _ bob: Running, bobAtAda: ForeignPeer, adaAtBob: ForeignPeer) async throws {
        #expect(ada.service.sharesClipboard(with: bobAtAda))
        #expect(bob.service.sharesClipboard(with: adaAtBob))
        let clipboard: (ForeignEvent) -> Clip? = { event in
            if case .clipboardReceived(let text, let from, let copiedAt) = event, from.name == "Bob" {
                return Clip(text: text, copiedAt: copiedAt)
            }
            return nil
        }
        bob.service.setClipboard("copied on Bob", copiedAt: nil, on: adaAtBob)
        #expect(await ada.events.first(where: clipboard) == Clip(text: "copied on Bob", copiedAt: nil))
        ada.events.clear()
        bob.service.send(
            KDEConnectPacket(
                type: "kdeconnect.clipboard.connect",
                body: ["content": .string("unknown age"), "timestamp": .number(0)]
            ),
            to: adaAtBob.id.value,
            certificate: bob.service.state.withLockedValue { $0.devices.device(adaAtBob)?.certificate }
        )
        bob.service.setClipboard("held since then", copiedAt: 1_764_000_000_123, on: adaAtBob)
        #expect(await ada.events.first(where: clipboard) == Clip(text: "held since then", copiedAt: 1_764_000_000_123))
    }

    struct Clip: Equatable {
        var text: String
        var copiedAt: UInt64?
    }
}
