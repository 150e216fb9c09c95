import Crypto
import Foundation
import HuddleForeign
import HuddleKDEConnectWire
import HuddleTestSupport
import HuddleTransport
import Testing
import X509

@testable import HuddleKDEConnect

/// A KDE Connect service of the tests' own over real TLS, on loopback sockets or in a test's memory
/// (``MemoryStreams``): it announces nothing (a test hands one device's announcement to another), takes offers,
/// and links with Huddle devices.
enum KDEConnectTestDevice {
    typealias Running = RunningService<KDEConnectService, ForeignEvent>

    /// Starts a device named `name` with a key of its own. `claiming` gives it another device's ID (an impostor:
    /// its own key, a certificate whose Common Name is that ID, as the protocol asks). Its connections go through
    /// `streams` (loopback sockets by default).
    static func start(
        _ name: String,
        in scratch: ScratchDirectory,
        claiming deviceId: String? = nil,
        limits: KDEConnectLimits = KDEConnectLimits(),
        streams: any ForeignStreams = SocketStreams()
    ) async throws -> Running {
        var configuration = configuration(name)
        configuration.limits = limits
        configuration.streams = streams
        return try await start(configuration, in: scratch, claiming: deviceId)
    }

    /// The configuration ``start(_:in:claiming:limits:)`` starts a device with: announcing nothing, any free
    /// ports, taking offers, linking with Huddle devices.
    static func configuration(_ name: String) -> KDEConnectConfiguration {
        var configuration = KDEConnectConfiguration(name: name)
        configuration.announces = false
        configuration.tcpPorts = 0...0
        configuration.payloadPorts = 0...0
        configuration.takesOffers = true
        configuration.linksWithHuddle = true
        return configuration
    }

    /// Starts a device with `configuration` and a key of its own (`claiming`: as above).
    static func start(
        _ configuration: KDEConnectConfiguration,
        in scratch: ScratchDirectory,
        claiming deviceId: String? = nil
    ) async throws -> Running {
        let home = scratch.appending(configuration.name)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
        let service = KDEConnectService(
            configuration: configuration,
            credentials: try credentials(claiming: deviceId),
            pins: ForeignPinStore(directory: home)
        )
        let events = EventRecorder(recording: service.events)
        let task = Task { try await service.run() }
        let port = try #require(await service.listening())
        return Running(service: service, events: events, task: task, port: port)
    }

    /// A key of its own, and a certificate named for its device ID (or for `claiming`).
    static func credentials(claiming deviceId: String? = nil) throws -> KDEConnectCredentials {
        let identity = try DeviceIdentity.ephemeral()
        let id = deviceId ?? KDEConnectCredentials.deviceID(for: identity.privateKey.publicKey)
        let certificate = try SelfSignedCertificate.issue(
            subject: try DistinguishedName {
                OrganizationName("KDE")
                CommonName(id)
            },
            key: identity.privateKey
        )
        return .init(deviceId: id, certificateDER: certificate, privateKey: identity.privateKey)
    }

    /// `dialler` hears `target`'s announcement (handed to it here) and dials it.
    static func dial(_ target: Running, from dialler: Running) {
        var announcement = target.service.ownIdentity
        announcement.tcpPort = target.port
        dialler.service.announcementArrived(announcement.packet.line(), from: "127.0.0.1")
    }

    static func found(_ name: String) -> (ForeignEvent) -> ForeignPeer? {
        { event in
            if case .found(let peer) = event, peer.name == name { return peer }
            return nil
        }
    }

    /// Links `a` and `b` (b dials), pairs them (b asks, a accepts) and returns each as the other sees it.
    static func linkAndPair(
        _ a: Running,
        _ b: Running,
        aName: String,
        bName: String
    ) async throws -> (
        aAtB: ForeignPeer, bAtA: ForeignPeer
    ) {
        dial(a, from: b)
        let aAtB = try #require(await b.events.first(where: found(aName)))
        let bAtA = try #require(await a.events.first(where: found(bName)))
        let pairing = Task { try await b.service.requestPairing(with: aAtB) }
        _ = try #require(await a.events.first(where: pairingRequest(from: bName)))
        a.service.answerPairing(bAtA, accept: true)
        // b's user confirms the key a accepted with.
        _ = try #require(await b.events.first(where: pairingConfirmation(of: aName)))
        b.service.answerPairing(aAtB, accept: true)
        try await pairing.value
        return (aAtB, bAtA)
    }

    static func pairingConfirmation(of name: String) -> (ForeignEvent) -> String? {
        { event in
            if case .pairingConfirmation(let peer, let key) = event, peer.name == name { return key }
            return nil
        }
    }

    static func pairingRequest(from name: String) -> (ForeignEvent) -> ForeignPeer? {
        { event in
            if case .pairingRequested(let peer, _) = event, peer.name == name { return peer }
            return nil
        }
    }

    static func offer(_ event: ForeignEvent) -> ForeignOffer? {
        if case .offered(let offer) = event { return offer }
        return nil
    }

    static func received(_ event: ForeignEvent) -> URL? {
        if case .received(_, _, let url) = event { return url }
        return nil
    }
}
