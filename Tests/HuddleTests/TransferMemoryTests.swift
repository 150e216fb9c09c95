import Dispatch
import Foundation
import HuddleTestSupport
import HuddleTransport
import NIOCore
import Synchronization
import Testing

@testable import Huddle

@Suite("Memory of a receiver whose disk is slow", .tags(.real), .timeLimit(.minutes(2)))
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
        try await withTestScope { scope in
            let budget = 2 * 1024 * 1024
            let disk = StalledDisk()
            defer { disk.release() }
            let pauses = EventRecorder<any Channel>()
            let (ada, bob, bobID, _) = try await scope.connectedPair {
                $0.transfers.maximumBufferedBytes = budget
                $0.transfers.writeSize = 256 * 1024
                $0.beforeTransferWrite = { disk.wait() }
                $0.receivePaused = pauses.sink
            }
            let source = try scope.directory()
            let target = try scope.directory()
            // Far more than the budget plus both sockets' buffers.
            let size = 48 * 1024 * 1024 + 7
            let url = try TransferTests.file(size, named: "large.bin", in: source, seed: 3)
            let sending = Task { try await ada.session.sendFile(at: url, to: bobID) }
            let offered = try #require(await bob.offer())
            try await bob.session.acceptTransfer(offered, into: target)

            // Nothing is written, so the buffered bytes climb past the budget and the connection stops reading:
            // Bob's side pauses it on its event loop while handling a read; once a task queued there after it has
            // run, that read is over and nothing more is read until the disk catches up.
            let paused = try #require(await pauses.first { $0 })
            try await paused.eventLoop.submit {}.get()
            #expect(try await paused.getOption(.autoRead).get() == false)
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
        }
    }
}
