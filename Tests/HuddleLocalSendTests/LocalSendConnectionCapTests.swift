import Foundation
import HuddleForeign
import HuddleLocalSendWire
import HuddleTestSupport
import HuddleTransport
import Testing

@testable import HuddleLocalSend

/// A host that opens connections to the LocalSend server and says nothing holds its own share of places and no
/// more, and each is closed when it has been idle too long: the server goes on answering everyone else
/// (docs/localsend.md, "Limits"). Real sockets on loopback; 127.0.0.2 plays the other host.
@Suite(.tags(.real)) struct LocalSendConnectionCapTests {
    func start(_ alias: String, limits: LocalSendLimits) async throws -> LocalSendTestDevice.Running {
        var configuration = LocalSendTestDevice.configuration(alias)
        configuration.limits = limits
        return try await LocalSendTestDevice.start(configuration)
    }

    @Test func idleConnectionsBeyondAnAddressesShareAreClosedAtOnceAndTheRestWhenIdle() async throws {
        var limits = LocalSendLimits()
        limits.maximumConnectionsPerAddress = 4
        limits.idleTimeout = .seconds(10)
        let server = try await start("Server", limits: limits)
        let asker = try await start("Asker", limits: LocalSendLimits())
        let idle = try await IdleConnections.open(10, from: "127.0.0.2", to: server.port)
        do {
            // Six beyond the share of four are closed as soon as they are accepted; four stay until idle.
            #expect(await idle.closed(atLeast: 6, within: .seconds(2)) >= 6)
            // No more than the share holds a place, however slow the machine (the idle closes only lower it).
            #expect(server.service.admission.pending <= 4)
            // Another host is answered meanwhile.
            let found = try await asker.service.probe(host: "127.0.0.1", port: server.port)
            #expect(found.name == "Server")
            #expect(await idle.closed(atLeast: 10, within: .seconds(30)) == 10)
        } catch {
            await idle.close()
            await asker.stop()
            await server.stop()
            throw error
        }
        await idle.close()
        await asker.stop()
        await server.stop()
    }
}
