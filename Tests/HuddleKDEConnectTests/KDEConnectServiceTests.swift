import Crypto
import Foundation
import HuddleForeign
import HuddleKDEConnectWire
import HuddleTestSupport
import HuddleTransport
import Testing
import X509

@testable import HuddleKDEConnect

/// Two KDE Connect services in one process over real TLS on loopback, speaking protocol version 8 to each other
/// (the identity again inside TLS, the verification key with the request's timestamp): what the Debian peer, at
/// version 7, cannot show. Every wait has a deadline.
@Suite(.tags(.real)) struct KDEConnectServiceTests {
    typealias Running = RunningService<KDEConnectService, ForeignEvent>

    func start(_ name: String, in scratch: ScratchDirectory) async throws -> Running {
        var configuration = KDEConnectConfiguration(name: name)
        configuration.announces = false
        configuration.tcpPorts = 0...0
        configuration.payloadPorts = 0...0
        configuration.takesOffers = true
        configuration.linksWithHuddle = true
        let identity = try DeviceIdentity.ephemeral()
        let deviceId = KDEConnectCredentials.deviceID(for: identity.privateKey.publicKey)
        let certificate = try ForeignCertificate.issue(
            subject: try DistinguishedName {
                OrganizationName("KDE")
                CommonName(deviceId)
            },
            key: identity.privateKey
        )
        let home = scratch.appending(name)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
        let service = KDEConnectService(
            configuration: configuration,
            credentials: .init(deviceId: deviceId, certificateDER: certificate, privateKey: identity.privateKey),
            pins: ForeignPinStore(directory: home)
        )
        let events = EventRecorder(recording: service.events)
        let task = Task { try await service.run() }
        let port = try #require(await service.listening())
        return Running(service: service, events: events, task: task, port: port)
    }

    static func found(_ name: String) -> (ForeignEvent) -> ForeignPeer? {
        { event in
            if case .found(let peer) = event, peer.name == name { return peer }
            return nil
        }
    }

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
    }

    @Test func aCertificateNotNamedForItsDeviceIDIsReadWithItsKeyAndName() throws {
        let identity = try DeviceIdentity.ephemeral()
        let der = try ForeignCertificate.issue(
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
            to: adaAtBob.id.value
        )
        bob.service.setClipboard("held since then", copiedAt: 1_764_000_000_123, on: adaAtBob)
        #expect(await ada.events.first(where: clipboard) == Clip(text: "held since then", copiedAt: 1_764_000_000_123))
    }

    struct Clip: Equatable {
        var text: String
        var copiedAt: UInt64?
    }
}
