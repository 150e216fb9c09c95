import Foundation
import HuddleForeign
import HuddleTestSupport
import NIOCore
import NIOPosix
import Testing

@testable import HuddleKDEConnect

/// With ``KDEConnectConfiguration/listenAddresses`` set (`--interface`), links are taken on those addresses only:
/// here 127.0.0.1 takes connections and 127.0.0.2, another address of the same host, refuses them.
@Suite(.tags(.real)) struct KDEConnectListenAddressTests {
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

    @Test func linksAreTakenOnTheGivenAddressOnly() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var configuration = KDEConnectTestDevice.configuration("Ada")
        configuration.listenAddresses = ["127.0.0.1"]
        let ada = try await KDEConnectTestDevice.start(configuration, in: scratch)
        #expect(await Self.connects("127.0.0.1", ada.port))
        #expect(!(await Self.connects("127.0.0.2", ada.port)))
        await ada.stop()
    }
}
