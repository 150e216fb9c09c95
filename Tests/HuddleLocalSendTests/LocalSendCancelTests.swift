import Foundation
import HuddleForeign
import HuddleTestSupport
import Testing

@testable import HuddleLocalSend

/// A session's end told both ways: a sender cancelled here tells the receiver before its upload stops, and a
/// receiver that ends the session mid-upload is reported as having cancelled. Real TLS in memory (the pair of
/// ``LocalSendServiceTests``); every wait has a deadline.
@Suite struct LocalSendCancelTests {
    /// A sparse file of `size` bytes: large enough that the upload is still under way when the test acts on its
    /// first progress, without writing it.
    func sparseFile(_ scratch: ScratchDirectory, _ name: String, size: UInt64) throws -> URL {
        let url = scratch.appending(name)
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: size)
        try handle.close()
        return url
    }

    static func receivedBytes(_ event: ForeignEvent) -> UInt64? {
        if case .progress(let progress) = event, !progress.isOutgoing, progress.completed > 0 {
            return progress.completed
        }
        return nil
    }

    static func failure(_ event: ForeignEvent) -> String? {
        if case .failed(_, let reason) = event { return reason }
        return nil
    }

    /// Two services over TLS in memory with a 256 MiB sparse file on its way from one to the other: `body` gets
    /// the receiver, the sending task, the receiver's directory and the bytes it had taken when `body` began.
    func withUploadUnderWay(
        _ body: (LocalSendServiceTests.Running, Task<Void, any Error>, URL, UInt64) async throws -> Void
    ) async throws {
        try await LocalSendServiceTests().withPair { receiver, sender, peer, scratch in
            let inbox = scratch.appending("inbox")
            try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: false)
            let big = try sparseFile(scratch, "big.bin", size: 256 << 20)
            let sending = Task { try await sender.service.send(files: [big], to: peer, pin: nil) }
            let offer = try #require(await receiver.events.first(where: LocalSendServiceTests.offer))
            await receiver.service.answer(offer, with: .accept(into: inbox))
            let moving = try #require(await receiver.events.first(where: Self.receivedBytes))
            try await body(receiver, sending, inbox, moving)
        }
    }

    @Test func aSendCancelledHereTellsTheReceiverBeforeItsUploadStops() async throws {
        try await withUploadUnderWay { receiver, sending, inbox, moving in
            #expect(moving < 256 << 20)
            sending.cancel()
            await #expect(throws: LocalSendError.cancelled) { try await sending.value }
            // The cancel came first: had the upload's connection closed first, the first failure would be the
            // upload's own ("big.bin from Sender: …").
            let first = try #require(await receiver.events.first(where: Self.failure))
            #expect(first == "Sender cancelled the transfer")
            // Then the upload ends too, and leaves nothing.
            let ended = await receiver.events.count(atLeast: 2) { Self.failure($0) != nil }
            #expect(ended)
            #expect(try FileManager.default.contentsOfDirectory(atPath: inbox.path) == [])
            #expect(!receiver.events.events.contains { if case .received = $0 { true } else { false } })
        }
    }

    @Test func aReceiverThatEndsTheSessionMidUploadIsReportedAsHavingCancelled() async throws {
        try await withUploadUnderWay { receiver, sending, _, _ in
            let host = try #require(await receiver.service.inbox.session?.host)
            #expect(await receiver.service.inbox.cancel(session: nil, host: host))
            await #expect(throws: LocalSendError.receiverCancelled) { try await sending.value }
            #expect(!receiver.events.events.contains { if case .received = $0 { true } else { false } })
        }
    }

    @Test func whichFailuresOfAnUploadAreTheReceiversCancel() async {
        for status in [403, 404, 409, 410] {
            let error = await LocalSendService.receiverEnded(
                LocalSendError.rejectedUpload(status: status, file: "a")
            ) { false }
            #expect(error as? LocalSendError == .receiverCancelled)
        }
        let serverError = await LocalSendService.receiverEnded(
            LocalSendError.rejectedUpload(status: 500, file: "a")
        ) { true }
        #expect(serverError as? LocalSendError == .rejectedUpload(status: 500, file: "a"))
        // Any refusal before the whole file was sent (localsendd answers 422 when it cancels): the receiver's
        // cancel; a server error stays one.
        let early = await LocalSendService.receiverEnded(UploadStopped(status: 422, file: "a")) { false }
        #expect(early as? LocalSendError == .receiverCancelled)
        let failing = await LocalSendService.receiverEnded(UploadStopped(status: 507, file: "a")) { true }
        #expect(failing as? LocalSendError == .rejectedUpload(status: 507, file: "a"))
        // A broken connection is the receiver's cancel only while the receiver still answers.
        let broken = LocalSendError.unreachable("reset")
        #expect(await LocalSendService.receiverEnded(broken) { true } as? LocalSendError == .receiverCancelled)
        #expect(await LocalSendService.receiverEnded(broken) { false } as? LocalSendError == broken)
        #expect(
            await LocalSendService.receiverEnded(LocalSendError.pinRejected) { true } as? LocalSendError == .pinRejected
        )
    }
}
