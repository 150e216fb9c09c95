import Foundation
import HuddleForeign
import HuddleKDEConnectWire
import HuddleTestSupport
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import HuddleKDEConnect

/// A file goes only to a payload connection that finished TLS with the paired certificate (docs/kdeconnect.md,
/// "Sharing"). A stranger who connects to the payload port first and says nothing neither takes the file into
/// TLS's buffer nor keeps the paired device waiting; it is closed at the handshake deadline. Real TLS on loopback.
@Suite(.tags(.real)) struct KDEConnectPayloadGateTests {
    typealias Device = KDEConnectTestDevice

    @Test func aSilentConnectionToThePayloadPortDoesNotTakeTheFileAndIsClosedAtTheDeadline() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var limits = KDEConnectLimits()
        limits.handshakeTimeout = .seconds(2)
        let ada = try await Device.start("Ada", in: scratch, limits: limits)
        let bob = try await Device.start("Bob", in: scratch)
        var silent: (any Channel)?
        do {
            let (_, bobAtAda) = try await Device.linkAndPair(ada, bob, aName: "Ada", bName: "Bob")
            let source = scratch.appending("video.bin")
            let bytes = Data((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try bytes.write(to: source)
            let sending = Task { try await ada.service.send(files: [source], to: bobAtAda, pin: nil) }
            let offer = try #require(await bob.events.first(where: Device.offer))
            let port = try #require(bob.service.state.withLockedValue { $0.offered[offer.id]?.port })

            // A stranger connects first and sends nothing.
            let stranger = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port).get()
            silent = stranger
            let inbox = scratch.appending("inbox")
            try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: false)
            await bob.service.answer(offer, with: .accept(into: inbox))
            let kept = try #require(
                await bob.events.first(within: .seconds(20), where: Device.received),
                "Bob: \(bob.events.events) Ada: \(ada.events.events)"
            )
            #expect(try Data(contentsOf: kept) == bytes)
            try await sending.value

            // The stranger's connection ends at the handshake deadline.
            let closed = ClosedWithin(stranger)
            #expect(await closed.wait(seconds: 20))
        } catch {
            try? await silent?.close()
            await bob.stop()
            await ada.stop()
            throw error
        }
        await bob.stop()
        await ada.stop()
    }
}

/// Whether a channel closes within a deadline.
struct ClosedWithin {
    let channel: any Channel

    init(_ channel: any Channel) { self.channel = channel }

    func wait(seconds: Int64) async -> Bool {
        let timeout = channel.eventLoop.scheduleTask(in: .seconds(seconds)) { channel.close(promise: nil) }
        let deadline = ContinuousClock.now + .seconds(seconds)
        try? await channel.closeFuture.get()
        timeout.cancel()
        return ContinuousClock.now < deadline
    }
}
