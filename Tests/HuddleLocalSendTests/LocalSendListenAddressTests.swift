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
        // Stopped while connections it accepted wait to be served, the service ends cleanly: its servers are shut
        // down gracefully, not cancelled (a cancelled server traps on such a connection, LocalSendServers).
        let waiting = try await withThrowingTaskGroup(of: (any Channel).self) { group in
            for port in Array(repeating: ada.port, count: 8) + Array(repeating: sharePort, count: 8) {
                group.addTask {
                    try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                        .connect(host: "127.0.0.1", port: port).get()
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        await ada.stop()
        if case .failure(let error) = await ada.task.result {
            #expect(error is CancellationError, "the run ended with \(error)")
        }
        for channel in waiting { try? await channel.close() }
    }
}
