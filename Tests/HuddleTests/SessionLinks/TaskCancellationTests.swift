import Foundation
import HuddleTestSupport
import Testing

@testable import Huddle

@Suite("Cancelling the task ends what it waits for", .timeLimit(.minutes(1)))
struct TaskCancellationTests {
    /// A `connect` waiting for the other side's decision ends with `.cancelled` when its task is cancelled, and
    /// the other side's request ends too. It used to wait for the decision or its own timeout.
    @Test func cancellingAConnectGivesUpTheAttempt() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let probes = try await scope.sessions(["Ada", "Bob"], configure: network.configure)
            let (ada, bob) = (probes[0], probes[1])
            let bobID = try #require(await ada.found(named: "Bob")).id
            let connecting = Task { try await ada.session.connect(to: bobID, timeout: .seconds(45)) }
            let asked = try #require(await bob.request(direction: .incoming))
            connecting.cancel()
            let outcome = await result(of: connecting, within: .seconds(20))
            guard case .failure(let error as PeerSessionError)? = outcome else {
                Issue.record("the cancelled connect did not fail: \(String(describing: outcome))")
                return
            }
            #expect(error == .cancelled)
            let ended = await bob.wait { event -> Bool? in
                if case .connectionRequestEnded(asked.id, _) = event { return true }
                return nil
            }
            #expect(ended == true)
            #expect(await ada.session.peers(in: .connected).isEmpty)
        }
    }

    /// A `sendFile` whose task is cancelled while its offer waits ends with `.cancelled`, and the receiver's
    /// offer is withdrawn. It used to ignore the cancellation.
    @Test func cancellingASendWithdrawsTheOffer() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let (ada, bob, bobID, _) = try await scope.connectedPair(configure: network.configure)
            let url = try scope.directory().appendingPathComponent("cancelled.bin")
            try Data(repeating: 3, count: 4096).write(to: url)
            let sending = Task { try await ada.session.sendFile(at: url, to: bobID) }
            let offered = try #require(await bob.offer())
            sending.cancel()
            let outcome = await result(of: sending, within: .seconds(20))
            guard case .failure(let error as PeerSessionError)? = outcome else {
                Issue.record("the cancelled send did not fail: \(String(describing: outcome))")
                return
            }
            #expect(error == .cancelled)
            let withdrawn = await bob.wait { event -> PeerSessionError? in
                if case .transferFailed(offered.id, _, let reason) = event { return reason }
                return nil
            }
            #expect(withdrawn == .transferFailed("the offer was withdrawn: cancelled by the sender"))
        }
    }

    /// `startSendingFile` hands back the transfer's ID before the receiver has answered, its progress in order up
    /// to the whole size, and its end once the receiver verified the file.
    @Test func aSendStartedWithAHandleReportsItsOwnProgressAndEnd() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let (ada, bob, bobID, _) = try await scope.connectedPair(configure: network.configure)
            let size = 3 * 1024 * 1024 + 17
            let url = try scope.directory().appendingPathComponent("handled.bin")
            try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: url)
            let sending = ada.session.startSendingFile(at: url, to: bobID)
            let offered = try #require(await bob.offer())
            #expect(offered.id == sending.id)
            try await bob.session.acceptTransfer(offered, into: try scope.directory())
            var seen: [UInt64] = []
            for await progress in sending.progress {
                #expect(progress.id == sending.id)
                seen.append(progress.completed)
            }
            #expect(try await sending.value == sending.id)
            #expect(seen == seen.sorted(), "\(seen)")
            #expect(seen.count >= 3, "\(seen)")  // every MiB and the end
            #expect(seen.last == UInt64(size), "\(seen)")
        }
    }

    /// `startSendingDirectory` does the same for a directory: the ID at once, the progress of its files, its report.
    @Test func aDirectorySendStartedWithAHandleReportsItsProgressAndReport() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let (ada, bob, bobID, _) = try await scope.connectedPair(configure: network.configure)
            let root = try scope.directory().appendingPathComponent("handled")
            try DirectoryTree.make(["a.bin": 1_500_000, "b/c.bin": 700_000], under: root)
            let sending = ada.session.startSendingDirectory(at: root, to: bobID)
            let offered = try #require(await bob.offer())
            #expect(offered.id == sending.id)
            try await bob.session.acceptTransfer(offered, into: try scope.directory())
            var seen: [UInt64] = []
            for await progress in sending.progress {
                #expect(progress.id == sending.id)
                seen.append(progress.completed)
            }
            let report = try await sending.value
            #expect(report.id == sending.id)
            #expect(report.filesSent == 2 && report.bytesSent == 2_200_000)
            #expect(seen == seen.sorted(), "\(seen)")
            #expect(seen.last == 2_200_000, "\(seen)")
            #expect(try DirectoryTree(try #require(await bob.finished())) == DirectoryTree(root))
        }
    }

    /// Cancelling through the handle ends the send with `.cancelled`, ends its progress, and withdraws the offer.
    @Test func aSendCancelledThroughItsHandleEnds() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let (ada, bob, bobID, _) = try await scope.connectedPair(configure: network.configure)
            let url = try scope.directory().appendingPathComponent("withdrawn.bin")
            try Data(repeating: 5, count: 1000).write(to: url)
            let sending = ada.session.startSendingFile(at: url, to: bobID)
            _ = try #require(await bob.offer())
            sending.cancel()
            await #expect(throws: PeerSessionError.cancelled) { _ = try await sending.value }
            var events = 0
            for await _ in sending.progress { events += 1 }
            #expect(events == 0)
        }
    }
}
