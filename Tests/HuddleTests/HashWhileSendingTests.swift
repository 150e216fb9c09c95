import Foundation
import HuddleTestSupport
import HuddleTransport
import NIOCore
import Testing

@testable import Huddle

@Suite(
    "Hashing while sending: resume keys and files that change under the sender",
    .tags(.real),
    .timeLimit(.minutes(1))
)
struct HashWhileSendingTests {

    /// The sender reads the file once, hashing as it sends; a write to the part not yet sent would give the
    /// receiver a file that never existed whole on disk, so the sender checks size and time at the end, fails
    /// with a typed error and tells the receiver, which keeps nothing under the file's name.
    @Test func aFileChangedWhileBeingSentFailsOnBothSidesAndIsNotKept() async throws {
        try await withTestScope { scope in
            let disk = TransferMemoryTests.StalledDisk()
            defer { disk.release() }
            let pauses = EventRecorder<any Channel>()
            let (ada, bob, bobID, _) = try await scope.connectedPair {
                $0.transfers.maximumBufferedBytes = 2 << 20
                $0.beforeTransferWrite = { disk.wait() }
                $0.receivePaused = pauses.sink
            }
            let source = try scope.directory()
            let target = try scope.directory()
            let size = 48 << 20
            let url = try TransferTests.file(size, named: "growing.log", in: source, seed: 9)
            let sending = Task { try await ada.session.sendFile(at: url, to: bobID) }
            let offered = try #require(await bob.offer())
            try await bob.session.acceptTransfer(offered, into: target)
            // The receiver's disk holds everything back, so its connection stops reading: the sender is stuck well
            // before the end of the file.
            #expect(await pauses.first { $0 } != nil)
            let handle = try FileHandle(forUpdating: url)
            try handle.seek(toOffset: UInt64(size - 1))
            try handle.write(contentsOf: [0x42])
            try handle.close()
            disk.release()

            let error = await #expect(throws: PeerSessionError.self) { try await sending.value }
            #expect(error == .transferFailed("growing.log changed while being sent"))
            let reason = await bob.wait { event -> String? in
                if case .transferFailed(offered.id, _, let error) = event, error.code == .transferFailed {
                    return error.reason
                }
                return nil
            }
            #expect(reason?.contains("changed while being sent") == true, "\(reason ?? "no failure")")
            #expect(!FileManager.default.fileExists(atPath: target.appendingPathComponent("growing.log").path))
        }
    }

}
