import Foundation
import HuddleForeign
import HuddleKDEConnectWire
import HuddleTestSupport
import HuddleTransport
import Testing

@testable import HuddleKDEConnect

/// A host that opens connections to the KDE Connect port and says nothing holds its own share of places and no
/// more; each is closed at the link deadline, and another device still links (docs/kdeconnect.md, "Limits"). Real
/// sockets on loopback; 127.0.0.2 plays the other host.
@Suite(.tags(.real)) struct KDEConnectConnectionCapTests {
    typealias Device = KDEConnectTestDevice

    @Test func silentConnectionsBeyondAnAddressesShareAreClosedAtOnceAndADeviceStillLinks() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var limits = KDEConnectLimits()
        limits.maximumLinksPerAddress = 3
        limits.handshakeTimeout = .seconds(6)
        let ada = try await Device.start("Ada", in: scratch, limits: limits)
        let bob = try await Device.start("Bob", in: scratch)
        let idle = try await IdleConnections.open(8, from: "127.0.0.2", to: ada.port)
        #expect(await idle.closed(atLeast: 5, within: .seconds(2)) >= 5)
        #expect(ada.service.admission.pending <= 3)
        Device.dial(ada, from: bob)
        #expect(await ada.events.first(where: Device.found("Bob")) != nil)
        #expect(await idle.closed(atLeast: 8, within: .seconds(30)) == 8)
        await idle.close()
        await bob.stop()
        await ada.stop()
    }
}
