import Foundation
import HuddleTestSupport
import HuddleTransport
import Testing

@testable import Huddle

/// The file changes while the link holds its transfer midway, so the change lands while the sender is reading it.
@Suite("Hashing while sending: files that change under the sender")
struct HashWhileSendingTests {
    /// The sender reads the file once, hashing as it sends; a write to the part not yet sent would give the
    /// receiver a file that never existed whole on disk, so the sender checks size and time at the end, fails
    /// with a typed error and tells the receiver, which keeps nothing under the file's name.
    @Test func aFileChangedWhileBeingSentFailsOnBothSidesAndIsNotKept() async throws {
        try await withTransferLink { link, scope in
            let (ada, bob) = (link.ada, link.bob)
            let source = try scope.directory()
            let target = try scope.directory()
            let size = 48 << 20
            let url = try TransferTests.file(size, named: "growing.log", in: source, seed: 9)
            let sending = Task { try await ada.transfers.sendFile(at: url, to: bob.peerID) }
            let offered = try #require(await bob.offer())
            // Held at the chunk from 2 MiB on: the sender, whose writes complete only as Bob takes them, stays
            // within its send window, well before the end of the file.
            await link.hold(to: bob, when: CancelTransferTests.chunk(of: offered.id, from: 2 << 20))
            try await bob.accept(offered, into: target)
            #expect(await link.held(to: bob))
            let handle = try FileHandle(forUpdating: url)
            try handle.seek(toOffset: UInt64(size - 1))
            try handle.write(contentsOf: [0x42])
            try handle.close()
            await link.release(to: bob)

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
