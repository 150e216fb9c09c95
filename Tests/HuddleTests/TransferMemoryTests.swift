import Dispatch
import Foundation
import HuddleTestSupport
import HuddleTransport
import Synchronization
import Testing

@testable import Huddle

@Suite("Memory of a receiver whose disk is slow")
struct TransferMemoryTests {
    /// A disk that takes no writes until released.
    final class StalledDisk: Sendable {
        let released = Atomic<Bool>(false)
        let semaphore = DispatchSemaphore(value: 0)

        func wait() {
            if !released.load(ordering: .acquiring) { semaphore.wait() }
        }

        func release() {
            released.store(true, ordering: .releasing)
            semaphore.signal()
        }
    }

    @Test func aStalledDiskStopsTheSocketAndBuffersStayWithinTheBudget() async throws {
        let budget = 2 * 1024 * 1024
        let disk = StalledDisk()
        let (ada, bob, bobID, _) = try await connectedPair {
            $0.transfers.maximumBufferedBytes = budget
            $0.transfers.writeSize = 256 * 1024
            $0.beforeTransferWrite = { disk.wait() }
        }
        let source = try TransferTests.scratch()
        let target = try TransferTests.scratch()
        // Far more than the budget plus both sockets' buffers.
        let size = 48 * 1024 * 1024 + 7
        let url = try TransferTests.file(size, named: "large.bin", in: source, seed: 3)
        let sending = Task { try await ada.session.sendFile(at: url, to: bobID) }
        let offered = try #require(await bob.offer())
        try await bob.session.acceptTransfer(offered, into: target)

        // Nothing is written, so the buffered bytes climb past the budget and the connection stops reading.
        for _ in 0..<200 where bob.session.bufferedTransferBytes.now <= budget {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(300))
        let stalled = bob.session.bufferedTransferBytes
        #expect(stalled.now > budget)
        // One read of the socket may come in after the pause, never the rest of the file.
        #expect(stalled.peak <= budget + (1 << 20))
        #expect(!sending.isCancelled)

        disk.release()
        _ = try await sending.value
        let kept = try #require(await bob.finished())
        #expect(try Data(contentsOf: kept) == Data(contentsOf: url))
        let after = bob.session.bufferedTransferBytes
        #expect(after.peak <= budget + (1 << 20))
        #expect(after.now == 0)
        await ada.session.stop()
        await bob.session.stop()
    }
}
