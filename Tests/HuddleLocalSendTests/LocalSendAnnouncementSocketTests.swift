import Foundation
import HuddleForeign
import HuddleLocalSendWire
import HuddleTestSupport
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import HuddleLocalSend

/// What a LocalSend service does with announcements, with real sockets on loopback: one sent to the multicast port
/// at the host's own address (not to the group) is dropped by the service's real socket, and makes it connect
/// nowhere (docs/localsend.md, "Discovery"). What it answers to one heard on the group is
/// `LocalSendAnnouncementAnswerTests`.
@Suite(.tags(.real)) struct LocalSendAnnouncementSocketTests {
    /// A UDP port free now on 0.0.0.0.
    static func freeUDPPort() async throws -> Int {
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "0.0.0.0", port: 0).get()
        defer { channel.close(promise: nil) }
        return try #require(channel.localAddress?.port)
    }

    static func announcement(_ alias: String, _ digit: Character, port: Int, protocol: String) -> LocalSendDeviceInfo {
        LocalSendDeviceInfo(
            alias: alias,
            deviceModel: nil,
            deviceType: "mobile",
            fingerprint: String(repeating: digit, count: 64),
            port: port,
            protocol: `protocol`,
            download: false,
            announce: true
        )
    }

    static func found(_ event: ForeignEvent) -> String? {
        if case .found(let peer) = event { return peer.name }
        return nil
    }

    /// Until the service has dropped `count` datagrams (it reports no event for them, so this is a bounded retry of
    /// a probe of its state, 5 ms apart, for at most 30 s); whether it did.
    static func dropped(_ count: Int, by service: LocalSendService) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while service.state.withLockedValue({ $0.droppedDatagrams }) < count {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    @Test func anAnnouncementSentToTheHostsAddressIsDroppedAndConnectsNowhere() async throws {
        let multicastPort = try await Self.freeUDPPort()
        var configuration = LocalSendTestDevice.configuration("Ada")
        configuration.usesMulticast = true
        configuration.multicastPort = multicastPort
        configuration.usesInterface = { _, isLoopback, _ in isLoopback }
        configuration.allowsPlainHTTP = true
        let ada = try await LocalSendTestDevice.start(configuration)
        let target = try await ListeningProbe.start()
        let sender = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        do {
            for proto in ["https", "http"] {
                let info = Self.announcement("unicast \(proto)", "A", port: target.port, protocol: proto)
                try await sender.writeAndFlush(
                    AddressedEnvelope(
                        remoteAddress: try SocketAddress(ipAddress: "127.0.0.1", port: multicastPort),
                        data: ByteBuffer(bytes: try JSONEncoder().encode(info))
                    )
                )
            }
            #expect(try await Self.dropped(2, by: ada.service))
            #expect(ada.events.events.compactMap(Self.found).isEmpty)
            #expect(target.accepted.events.isEmpty)
        } catch {
            try? await sender.close()
            await target.close()
            await ada.stop()
            throw error
        }
        try? await sender.close()
        await target.close()
        await ada.stop()
    }
}
