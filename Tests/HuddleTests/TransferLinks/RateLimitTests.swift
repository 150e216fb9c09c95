import Foundation
import HuddleTestSupport
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

@_spi(Testing) @testable import Huddle

@Suite("Bandwidth limits: a sender waits on the session's clock, a receiver stops reading until the limit allows")
struct RateLimitTests {
    static let (ada, bob) = (DeviceID(subjectPublicKeyInfo: [1]), DeviceID(subjectPublicKeyInfo: [2]))

    @Test func aChunkWaitsForEveryLimitThatApplies() {
        let slow = ByteRate(bytesPerSecond: 1000)
        let pacing = TransferPacing(
            TransferRateLimits(sending: ByteRate(bytesPerSecond: 4000), perDevice: [Self.bob: slow])
        )
        let now = ContinuousClock.now
        // To Bob: his own 1,000 B/s is the slower; the total counts the bytes too.
        #expect(pacing.admit(1000, .sending, device: Self.bob, now: now) == nil)
        #expect(pacing.admit(1000, .sending, device: Self.bob, now: now) == now + .milliseconds(750))
        // To Ada: only the total (4,000 B/s, 2,000 bytes counted so far: paid until 0.5 s) applies.
        #expect(pacing.admit(1000, .sending, device: Self.ada, now: now) == now + .milliseconds(250))
        // Receiving has no total; Bob's own limit applies to it apart from his sends.
        #expect(pacing.admit(1000, .receiving, device: Self.ada, now: now) == nil)
        #expect(pacing.admit(1000, .receiving, device: Self.bob, now: now) == nil)
        #expect(pacing.admit(1000, .receiving, device: Self.bob, now: now) == now + .milliseconds(750))
        #expect(pacing.admit(1 << 30, .sending, device: nil, now: now) != nil)
        #expect(TransferPacing(TransferRateLimits()).admit(1 << 30, .receiving, device: Self.bob, now: now) == nil)
    }

    /// The totals are the pacers a session hands to the foreign protocols beside it: what LocalSend or KDE Connect
    /// moved makes the session's next chunk wait, and the other way round.
    @Test func theTotalsAreSharedWithTheForeignProtocols() {
        let pacing = TransferPacing(
            TransferRateLimits(sending: ByteRate(bytesPerSecond: 4000), receiving: ByteRate(bytesPerSecond: 2000))
        )
        let now = ContinuousClock.now
        let foreignSending = pacing.totals.sending
        let foreignReceiving = pacing.totals.receiving
        #expect(foreignSending?.rate == ByteRate(bytesPerSecond: 4000))
        #expect(foreignReceiving?.rate == ByteRate(bytesPerSecond: 2000))
        // A LocalSend upload of 2,000 bytes pays the send total until 0.5 s: Huddle's next 1,000 wait until 0.5 s
        // less the tolerance.
        #expect(foreignSending?.admit(2000, now: now) == nil)
        #expect(pacing.admit(1000, .sending, device: Self.bob, now: now) == now + .milliseconds(250))
        // Then the foreign side waits for both: paid until 0.75 s.
        #expect(foreignSending?.admit(1000, now: now) == now + .milliseconds(500))
        // Receiving: Huddle's 1,000 bytes (paid until 0.5 s at 2,000 B/s) make a KDE Connect read of 1,000 wait.
        #expect(pacing.admit(1000, .receiving, device: nil, now: now) == nil)
        #expect(foreignReceiving?.admit(1000, now: now) == now + .milliseconds(250))
        #expect(TransferPacing(TransferRateLimits()).totals.sending == nil)
    }

    /// A foreign device's own limit (by fingerprint, either case) is in the pacers handed to the foreign protocols,
    /// not the session's: its bytes wait for it and the total; another device's for the total alone.
    @Test func aForeignDeviceWaitsForItsOwnLimitAndTheTotal() {
        var limits = TransferRateLimits(sending: ByteRate(bytesPerSecond: 4000))
        let fingerprint = String(repeating: "AB", count: 32)
        limits.perForeignDevice = [fingerprint: ByteRate(bytesPerSecond: 1000)]
        let pacing = TransferPacing(limits)
        let foreign = pacing.totals
        let now = ContinuousClock.now
        #expect(foreign.admit(1000, .sending, device: fingerprint.lowercased(), now: now) == nil)
        // Its own 1,000 B/s: the first 1,000 paid until 1 s, so these may go at 0.75 s; the total would allow now.
        #expect(foreign.admit(1000, .sending, device: fingerprint, now: now) == now + .milliseconds(750))
        #expect(foreign.admit(1000, .sending, device: "CD", now: now) == now + .milliseconds(250))
        // Receiving has no total and the device's limit holds it apart from its sends.
        #expect(foreign.admit(1000, .receiving, device: fingerprint, now: now) == nil)
        #expect(foreign.admit(1000, .receiving, device: fingerprint, now: now) == now + .milliseconds(750))
        // The session's own pacing knows nothing of it: Bob has no limit of his own.
        #expect(pacing.admit(1, .receiving, device: Self.bob, now: now) == nil)
    }

    /// A connection whose bytes came faster than its receive limit stops reading (the handler turns `autoRead`
    /// off when told to pause), and reads again once the limit allows: TCP then holds the sender to the rate.
    @Test func aReceiveLimitPausesTheConnectionUntilItAllows() throws {
        let clock = NIOLockedValueBox(ContinuousClock.now)
        let limits = TransferRateLimits(receiving: ByteRate(bytesPerSecond: 10_000))
        let flow = ReceiveFlow(
            budget: 1 << 20,
            transferBudget: 1 << 20,
            pacing: TransferPacing(limits),
            now: { clock.withLockedValue { $0 } }
        )
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        flow.connected(PeerID(rawValue: "bob"), channel: channel, device: Self.bob)
        func autoReads() -> [Bool] {
            channel.options.compactMap { $0.option is ChannelOptions.Types.AutoReadOption ? $0.value as? Bool : nil }
        }
        #expect(!flow.receivedResource(2000, on: channel))  // paid until 0.2 s: within the tolerance
        #expect(!flow.receivedResource(2000, on: channel))  // started at 0.2 s, within the tolerance
        #expect(flow.receivedResource(2000, on: channel))  // starts at 0.4 s: may come at 0.15 s
        try channel.setOption(.autoRead, value: false).wait()
        clock.withLockedValue { $0 += .milliseconds(100) }
        loop.advanceTime(by: .milliseconds(100))
        #expect(autoReads() == [false])
        // The event loop's timer comes before the session's clock says so: it waits again for the rest.
        loop.advanceTime(by: .milliseconds(50))
        #expect(autoReads() == [false])
        clock.withLockedValue { $0 += .milliseconds(60) }
        loop.advanceTime(by: .milliseconds(50))
        #expect(autoReads() == [true])
        // The budget of buffered bytes is untouched by the limit: it still counts what came.
        #expect(flow.bufferedTransferBytes.now == 6000)
        withExtendedLifetime(flow.charge(resource: 6000)) {}
        #expect(flow.bufferedTransferBytes.now == 0)
    }

    /// A connection a limit paused stays paused while the buffered-bytes budget is let go of: only the limit's
    /// timer lets it read again.
    @Test func theBudgetDoesNotResumeWhatTheLimitHolds() throws {
        let start = ContinuousClock.now
        let loop = EmbeddedEventLoop()
        let limits = TransferRateLimits(receiving: ByteRate(bytesPerSecond: 1024))
        let flow = ReceiveFlow(budget: 1 << 20, transferBudget: 1000, pacing: TransferPacing(limits)) {
            start + .nanoseconds(loop.now.uptimeNanoseconds)
        }
        let channel = EmbeddedChannel(loop: loop)
        flow.connected(PeerID(rawValue: "bob"), channel: channel, device: Self.bob)
        func autoReads() -> [Bool] {
            channel.options.compactMap { $0.option is ChannelOptions.Types.AutoReadOption ? $0.value as? Bool : nil }
        }
        #expect(!flow.receivedResource(1000, on: channel))  // within both: paid until 0.98 s
        #expect(flow.receivedResource(1000, on: channel))  // over the budget, and may come only at 0.73 s
        try channel.setOption(.autoRead, value: false).wait()
        withExtendedLifetime(flow.charge(resource: 2000)) {}  // all written: the budget alone would resume it
        #expect(autoReads() == [false])
        loop.advanceTime(by: .milliseconds(700))
        #expect(autoReads() == [false])
        loop.advanceTime(by: .milliseconds(50))
        #expect(autoReads() == [true])
    }

    /// Ada sends 600 KiB to Bob at 120 KiB/s on a manual clock: the file takes what the rate says (the last
    /// chunk may go 0.25 s early, the pacer's tolerance) and arrives whole.
    @Test(arguments: [false, true])
    func aSendWaitsForItsLimit(perDevice: Bool) async throws {
        let clock = ManualSessionClock()
        var configuration = PeerSessionConfiguration()
        clock.configure(&configuration)
        let rate = ByteRate(bytesPerSecond: 120 * 1024)
        configuration.transfers.rateLimits =
            perDevice
            ? TransferRateLimits(perDevice: [DeviceID(subjectPublicKeyInfo: Array("bob".utf8)): rate])
            : TransferRateLimits(sending: rate)
        try await withTransferLink(configuration) { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let source = try scope.directory()
            let target = try scope.directory()
            let url = try TransferTests.file(600 * 1024, named: "slow.bin", in: source)
            let done = NIOLockedValueBox(false)
            let sending = Task {
                defer { done.withLockedValue { $0 = true } }
                return try await ada.transfers.sendFile(at: url, to: bob.peerID)
            }
            let offered = try #require(await bob.offer())
            try await bob.accept(offered, into: target)
            let start = clock.now
            let deadline = ContinuousClock.now + .seconds(60)
            // Only the pacer sleeps for less than a second (the offer's decision timer waits 300 s): each of its
            // wakes is taken exactly, and nothing else moves the clock.
            while !done.withLockedValue({ $0 }) && ContinuousClock.now < deadline {
                if let next = clock.nextDeadline, next < clock.now + .seconds(1) {
                    clock.advance(by: clock.now.duration(to: next))
                } else {
                    await Task.yield()
                }
            }
            _ = try await sending.value
            let taken = start.duration(to: clock.now)
            // Ten chunks of 60 KiB and a 25-byte header each, 0.5002 s apiece: the last starts at 4.502 s and may
            // go a tolerance (0.25 s) early.
            #expect(taken >= .milliseconds(4250) && taken <= .milliseconds(4260), "took \(taken)")
            let kept = try #require(await bob.finished())
            #expect(try Data(contentsOf: kept) == Data(contentsOf: url))
        }
    }
}
