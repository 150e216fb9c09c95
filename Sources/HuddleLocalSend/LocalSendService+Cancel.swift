import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// How a session's end is told, both ways (docs/localsend.md, "Cancelling").
///
/// - Cancelled here (Ctrl-C): `/cancel` goes to the receiver while the upload's connection is still open, and only
///   then is the upload stopped. A receiver that saw the connection close first would take the transfer for a broken
///   one, not a cancelled one.
/// - An upload that failed: `/cancel` goes too, and when the receiver refused the upload of a session it had
///   accepted (403, 404, 409, 410, or any 4xx before the whole file was sent), or broke the connection off while it
///   still answers, the error says that the receiver cancelled.
///
/// Telling is a courtesy, never a wait: it is bounded by ``cancelNoticeTimeout``.
extension LocalSendService {
    /// How long telling a receiver that the session ended, or asking whether it still answers, may take.
    static let cancelNoticeTimeout: TimeAmount = .seconds(2)

    /// Runs a session's uploads; see the extension's documentation.
    func runUploads(
        session: String,
        at target: LocalSendHTTPClient.Target,
        _ uploads: @escaping @Sendable () async throws -> Void
    ) async throws {
        // Not a child task: the caller's cancellation must not reach the upload before the receiver was told.
        let work = Task { try await uploads() }
        let cancelledHere = NIOLockedValueBox(false)
        do {
            try await withTaskCancellationHandler {
                try await work.value
            } onCancel: {
                cancelledHere.withLockedValue { $0 = true }
                Task {
                    await self.noticeCancel(session: session, at: target)
                    work.cancel()
                }
            }
        } catch {
            if cancelledHere.withLockedValue({ $0 }) { throw LocalSendError.cancelled }
            await noticeCancel(session: session, at: target)
            throw await Self.receiverEnded(error) { await self.answers(target) }
        }
    }

    /// POSTs `/cancel` for the session, bounded; whatever the answer, or none.
    func noticeCancel(session: String, at target: LocalSendHTTPClient.Target) async {
        _ = try? await quickRequest(.POST, target, path: "/api/localsend/v2/cancel?sessionId=\(session)")
    }

    /// Whether the device answers its info, bounded.
    func answers(_ target: LocalSendHTTPClient.Target) async -> Bool {
        let response = try? await quickRequest(.GET, target, path: "/api/localsend/v2/info")
        return response?.status == 200
    }

    /// One small request within ``cancelNoticeTimeout``, in a task of its own: a cancelled caller still sends it.
    func quickRequest(
        _ method: NIOHTTP1.HTTPMethod,
        _ target: LocalSendHTTPClient.Target,
        path: String
    ) async throws -> LocalSendHTTPClient.Response {
        var quick = client
        quick.connectTimeout = Self.cancelNoticeTimeout
        let request = Task { try await quick.request(method, target, path: path, responseLimit: 64 * 1024) }
        let timer = Task {
            try await Task.sleep(for: .nanoseconds(Self.cancelNoticeTimeout.nanoseconds))
            request.cancel()
        }
        defer { timer.cancel() }
        return try await request.value
    }

    /// The error an upload's failure stands for: the receiver's cancel when it refused the upload of a session it
    /// had accepted, or broke it off and still answers (`answers`); else the failure itself.
    static func receiverEnded(_ error: any Error, answers: () async -> Bool) async -> any Error {
        switch error {
        case let refused as LocalSendError
        where refused.code == .rejectedUpload && [403, 404, 409, 410].contains(refused.status ?? 0):
            return LocalSendError.receiverCancelled
        case let stopped as UploadStopped:
            // Not a verdict on the file (a 422 for its SHA-256 cannot come before its end): the receiver ended it.
            if (400..<500).contains(stopped.status) { return LocalSendError.receiverCancelled }
            return LocalSendError.rejectedUpload(status: stopped.status, file: stopped.file)
        case let broken as LocalSendError where broken.code == .unreachable || broken.code == .cancelled:
            return await answers() ? LocalSendError.receiverCancelled : error
        default:
            return error
        }
    }
}

/// An upload the receiver answered (not with 200) before the whole file was sent.
struct UploadStopped: Error, Sendable {
    let status: Int
    let file: String
}
