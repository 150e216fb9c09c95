import Foundation
import HuddleForeign
import HuddleKDEConnectWire
import HuddleTestSupport
import HuddleTransport
import NIOCore
import Testing

@testable import HuddleKDEConnect

/// A host that opens connections to the KDE Connect port and says nothing holds its own share of places and no
/// more; each is closed at the link deadline, and another device still links (docs/kdeconnect.md, "Limits"). In
/// memory (``MemoryStreams``), where the deadline falls when the test moves the connections' clock; 127.0.0.2
/// plays the other host.
@Suite struct KDEConnectConnectionCapTests {
    typealias Device = KDEConnectTestDevice

    @Test func silentConnectionsBeyondAnAddressesShareAreClosedAtOnceAndADeviceStillLinks() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let streams = MemoryStreams()
        var limits = KDEConnectLimits()
        limits.maximumLinksPerAddress = 3
        limits.handshakeTimeout = .seconds(6)
        let ada = try await Device.start("Ada", in: scratch, limits: limits, streams: streams)
        let bob = try await Device.start("Bob", in: scratch, streams: streams)
        do {
            let silent = try await streams.openSilent(8, from: "127.0.0.2", to: ada.port)
            // The five beyond the address's share of three are closed as they are accepted.
            #expect(silent.closed == 5)
            #expect(ada.service.admission.pending == 3)
            Device.dial(ada, from: bob)
            #expect(await ada.events.first(where: Device.found("Bob")) != nil)
            // The three that hold places are closed at the link deadline, not before.
            await silent.advanceTime(by: .milliseconds(5_999))
            #expect(silent.closed == 5)
            await silent.advanceTime(by: .milliseconds(1))
            #expect(silent.closed == 8)
            // Only Bob's link holds a place now.
            #expect(ada.service.admission.pending == 1)
        } catch {
            await bob.stop()
            await ada.stop()
            throw error
        }
        await bob.stop()
        await ada.stop()
    }
}
