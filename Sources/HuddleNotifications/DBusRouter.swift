import HuddleErrors
import NIOConcurrencyHelpers

/// Who waits for which reply on one connection (D-Bus Specification, "Message Protocol", REPLY_SERIAL): every
/// call gets the next serial and a waiter; a return or error resumes the waiter of its serial, anything else goes
/// to `other`. Once the connection fails, every waiter and every later call gets the failure.
final class DBusRouter: Sendable {
    private struct State {
        var nextSerial: UInt32 = 1
        var waiting: [UInt32: CheckedContinuation<DBusMessage, any Error>] = [:]
        var failure: NotificationError?
    }

    private let state = NIOLockedValueBox(State())
    private let reply: @Sendable (DBusMessage) -> Void
    private let other: @Sendable (DBusMessage) -> Void
    private let failed: @Sendable (NotificationError) -> Void

    /// `reply` sees every reply before its waiter is resumed, in the order they came; `other` gets signals and
    /// calls; `failed` is told once when the connection ends.
    init(
        reply: @escaping @Sendable (DBusMessage) -> Void,
        other: @escaping @Sendable (DBusMessage) -> Void,
        failed: @escaping @Sendable (NotificationError) -> Void
    ) {
        self.reply = reply
        self.other = other
        self.failed = failed
    }

    /// A serial for `message`, and a place to wait for its reply; `send` writes its bytes out.
    func call(
        _ message: DBusMessage,
        send: @Sendable (_ serial: UInt32, _ bytes: [UInt8]) -> Void
    ) async throws -> DBusMessage {
        try await withCheckedThrowingContinuation { continuation in
            let outcome: Result<(UInt32, [UInt8]), any Error> = state.withLockedValue { state in
                if let failure = state.failure { return .failure(failure) }
                var message = message
                message.serial = state.nextSerial
                state.nextSerial = state.nextSerial == .max ? 1 : state.nextSerial + 1
                do {
                    let bytes = try message.encoded()
                    state.waiting[message.serial] = continuation
                    return .success((message.serial, bytes))
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case .success(let (serial, bytes)): send(serial, bytes)
            case .failure(let error): continuation.resume(throwing: error)
            }
        }
    }

    /// Gives up on the reply to `serial` (it took too long).
    func abandon(_ serial: UInt32, _ error: NotificationError) {
        state.withLockedValue { $0.waiting.removeValue(forKey: serial) }?.resume(throwing: error)
    }

    func received(_ message: DBusMessage) {
        guard message.kind == .methodReturn || message.kind == .error, let serial = message.replySerial,
            let waiter = state.withLockedValue({ $0.waiting.removeValue(forKey: serial) })
        else { return other(message) }
        reply(message)
        if message.kind == .error {
            let detail = message.body.first?.stringValue.map { ": " + $0 } ?? ""
            waiter.resume(throwing: NotificationError(.remoteError, (message.errorName ?? "an error") + detail))
        } else {
            waiter.resume(returning: message)
        }
    }

    func fail(_ error: NotificationError) {
        let waiters: [CheckedContinuation<DBusMessage, any Error>]? = state.withLockedValue { state in
            guard state.failure == nil else { return nil }
            state.failure = error
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        guard let waiters else { return }
        for waiter in waiters { waiter.resume(throwing: error) }
        failed(error)
    }
}
