import Foundation
import HuddleForeign
import HuddleTestSupport
import NIOCore
import NIOPosix
import Testing

@testable import HuddleLocalSend

/// With ``LocalSendConfiguration/listenAddresses`` set (`--interface`), the API and the share page listen on
/// those addresses only: here 127.0.0.1 takes connections and 127.0.0.2, another address of the same host,
/// refuses them.
@Suite(.tags(.real)) struct LocalSendListenAddressTests {
    /// Whether a TCP connection to `host`:`port` opens (it is closed at once).
    static func connects(_ host: String, _ port: Int) async -> Bool {
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .connect(host: host, port: port).get()
            try? await channel.close()
            return true
        } catch {
            return false
        }
    }

    @Test func theServersListenOnTheGivenAddressOnly() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let shared = scratch.appending("notes.txt")
        try Data("shared words".utf8).write(to: shared)
        var configuration = LocalSendTestDevice.configuration("Ada")
        var share = LocalSendShareConfiguration(files: [shared])
        share.httpPort = 0
        configuration.share = share
        configuration.listenAddresses = ["127.0.0.1"]
        let ada = try await LocalSendTestDevice.start(configuration)
        let sharePort = try #require(ada.service.sharePort)
        for port in [ada.port, sharePort] {
            #expect(await Self.connects("127.0.0.1", port))
            #expect(!(await Self.connects("127.0.0.2", port)))
        }
        await ada.stop()
    }
}
