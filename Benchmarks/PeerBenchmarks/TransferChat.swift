import ArgumentParser
import Foundation
import Huddle

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Chat messages stamped with the sender's monotonic clock, so the receiver can tell their one-way latency.
///
/// Test hosts are network namespaces of one kernel and share its monotonic clock: a stamp taken on one host and
/// compared on the other measures the message's whole path (the sender's queue, TLS, both sockets, the
/// receiver's event loop and session) without a round trip.
enum ChatStamp {
    /// Nanoseconds of the system's monotonic clock.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Message `sequence`: `C <sequence> <nanoseconds>`, padded with spaces to `size` bytes like a chat line.
    static func message(_ sequence: Int, size: Int) -> [UInt8] {
        let text = Array("C \(sequence) \(now()) ".utf8)
        return text + Array(repeating: UInt8(ascii: " "), count: max(0, size - text.count))
    }

    /// What `serve` prints for an arriving chat message: its sequence, one-way latency, and how far the file
    /// being received meanwhile had come (`null` when none was).
    static func arrival(of bytes: [UInt8], receiving: (completed: UInt64, total: UInt64)?) -> [String: Any] {
        let arrived = now()
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        guard fields.count >= 3, let sequence = Int(fields[1]), let sent = UInt64(fields[2]) else {
            return ["event": "chat", "error": "malformed"]
        }
        var result: [String: Any] = [
            "event": "chat", "seq": sequence, "latency_ms": Double(Int64(arrived) - Int64(sent)) / 1e6,
        ]
        if let receiving {
            result["completed"] = Int(receiving.completed)
            result["total"] = Int(receiving.total)
        }
        return result
    }
}

extension Client {
    /// Sends `file` and, once `after` bytes of it are on their way, `count` chat messages `interval` ms apart
    /// over the same connection; `serve --dir` times each message.
    func chatDuringTransfer(session: PeerSession, peer: PeerID, replies: inout Replies) async throws {
        guard let file else { throw ValidationError("--mode chat needs --file") }
        let url = URL(fileURLWithPath: file)
        let start = ContinuousClock.now
        let transfer = Task { try await session.sendFile(at: url, to: peer) }
        while let event = await replies.pump() {
            if case .transferProgress(let progress) = event, progress.completed >= UInt64(after) { break }
        }
        for sequence in 0..<count {
            try await session.send(ChatStamp.message(sequence, size: size), to: [peer])
            try await Task.sleep(for: .milliseconds(interval))
        }
        _ = try await transfer.value
        let elapsed = milliseconds(start.duration(to: .now))
        emit(["mode": "chat", "sent": count, "transfer_ms": elapsed])
    }
}
