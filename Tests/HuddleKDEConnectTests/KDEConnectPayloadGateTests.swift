import Foundation
import HuddleForeign
import HuddleKDEConnectWire
import HuddleTestSupport
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import HuddleKDEConnect

/// A file goes only to a payload connection that finished TLS with the paired certificate (docs/kdeconnect.md,
/// "Sharing"). A stranger who connects to the payload port first and says nothing neither takes the file into
/// TLS's buffer nor keeps the paired device waiting; it is closed at the handshake deadline. Real TLS in memory
/// (``MemoryStreams``), where the deadline falls when the test moves the stranger's clock.
@Suite struct KDEConnectPayloadGateTests {
    typealias Device = KDEConnectTestDevice

    @Test func aSilentConnectionToThePayloadPortDoesNotTakeTheFileAndIsClosedAtTheDeadline() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let streams = MemoryStreams()
        var limits = KDEConnectLimits()
        limits.handshakeTimeout = .seconds(2)
        let ada = try await Device.start("Ada", in: scratch, limits: limits, streams: streams)
        let bob = try await Device.start("Bob", in: scratch, streams: streams)
        do {
            let (_, bobAtAda) = try await Device.linkAndPair(ada, bob, aName: "Ada", bName: "Bob")
            let source = scratch.appending("video.bin")
            let bytes = Data((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try bytes.write(to: source)
            let sending = Task { try await ada.service.send(files: [source], to: bobAtAda, pin: nil) }
            let offer = try #require(await bob.events.first(where: Device.offer))
            let port = try #require(bob.service.state.withLockedValue { $0.offered[offer.id]?.port })

            // A stranger connects first and sends nothing.
            let stranger = try await streams.openSilent(1, from: "127.0.0.3", to: port)
            let inbox = scratch.appending("inbox")
            try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: false)
            await bob.service.answer(offer, with: .accept(into: inbox))
            let kept = try #require(await bob.events.first(where: Device.received))
            #expect(try Data(contentsOf: kept) == bytes)
            try await sending.value

            // The stranger's connection ends at the handshake deadline, not before.
            #expect(stranger.closed == 0)
            await stranger.advanceTime(by: .milliseconds(1_999))
            #expect(stranger.closed == 0)
            await stranger.advanceTime(by: .milliseconds(1))
            #expect(stranger.closed == 1)
        } catch {
            await bob.stop()
            await ada.stop()
            throw error
        }
        await bob.stop()
        await ada.stop()
    }
}
