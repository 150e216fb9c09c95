import Foundation
import HuddleForeign
import HuddleKDEConnectWire
import HuddleTestSupport
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import HuddleKDEConnect

/// Identity datagrams on a KDE Connect service's real UDP socket (loopback the only interface it uses, a port of
/// the test's own): the service dials the source of one that came from the loopback's own subnet, never the source
/// of one from another subnet (here this host's other address, sent to 127.0.0.1: it comes in on `lo` all the
/// same), which is what a spoofed or routed datagram looks like (docs/kdeconnect.md, "Discovery").
@Suite(.tags(.real), .timeLimit(.minutes(1))) struct KDEConnectAnnouncementSocketTests {
    /// An IPv4 address of this host beyond loopback; nil when it has none.
    static let otherAddress: String? = (try? System.enumerateDevices())?.lazy.compactMap { device -> String? in
        guard case .v4 = device.address, let text = device.address?.ipAddress, !text.hasPrefix("127.") else {
            return nil
        }
        return text
    }.first

    static func identity(_ id: Character, port: Int) -> ByteBuffer {
        let identity = KDEConnectIdentity(
            deviceId: String(repeating: id, count: 32),
            deviceName: "Phone \(id)",
            deviceType: "phone",
            protocolVersion: 8,
            incomingCapabilities: [],
            outgoingCapabilities: [],
            tcpPort: port
        )
        return ByteBuffer(bytes: identity.packet.line())
    }

    /// Whether the test can run: with CI=true it always runs, and fails on a host with no other address.
    static let canRun = otherAddress != nil || ProcessInfo.processInfo.environment["CI"] == "true"

    @Test(.enabled(if: canRun, "this host has no IPv4 address besides loopback"))
    func anIdentityFromOffTheLinkItCameInOnIsNotDialled() async throws {
        let otherAddress = try #require(Self.otherAddress)
        let udpPort = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "0.0.0.0", port: 0).get()
        let port = try #require(udpPort.localAddress?.port)
        try await udpPort.close()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var configuration = KDEConnectTestDevice.configuration("Ada")
        configuration.announces = true
        configuration.port = port
        configuration.usesInterface = { _, isLoopback, _ in isLoopback }
        let ada = try await KDEConnectTestDevice.start(configuration, in: scratch)
        // Where each identity says the device listens: the other address for the off-link one, as a real device
        // would say its own.
        let offLinkTarget = try await ListeningProbe.start(on: otherAddress)
        let onLinkTarget = try await ListeningProbe.start()
        let offLinkSender = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: otherAddress, port: 0).get()
        let onLinkSender = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        func stop() async {
            for sender in [offLinkSender, onLinkSender] { try? await sender.close() }
            for probe in [offLinkTarget, onLinkTarget] { await probe.close() }
            await ada.stop()
        }
        do {
            let toAda = try SocketAddress(ipAddress: "127.0.0.1", port: port)
            // First the one from off the link, then (the same socket reads them in order) the one from on it.
            try await offLinkSender.writeAndFlush(
                AddressedEnvelope(remoteAddress: toAda, data: Self.identity("x", port: offLinkTarget.port))
            )
            try await onLinkSender.writeAndFlush(
                AddressedEnvelope(remoteAddress: toAda, data: Self.identity("y", port: onLinkTarget.port))
            )
            #expect(await onLinkTarget.accepted.first(where: { $0 }) == "127.0.0.1")
            let dialling = ada.service.state.withLockedValue { $0.devices.dialling }
            #expect(dialling == [String(repeating: "y", count: 32)])
            #expect(offLinkTarget.accepted.events.isEmpty)
        } catch {
            await stop()
            throw error
        }
        await stop()
    }
}
