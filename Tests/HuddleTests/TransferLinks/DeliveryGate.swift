import HuddleWire
import NIOCore

/// Holds one direction of a ``TransferLink`` at a message a test names, until the test releases it: so a test
/// acts (cancels, cuts) at an exact point of a transfer, whatever the machine's speed.
actor DeliveryGate {
    private var holdWhen: (@Sendable (TransferMessage) -> Bool)?
    private var isHolding = false
    /// The link's pump, waiting at the held message.
    private var pump: CheckedContinuation<Void, Never>?
    /// Tests waiting for the hold, by number.
    private var watchers: [Int: CheckedContinuation<Bool, Never>] = [:]
    private var nextWatcher = 0

    /// Holds the first message from now on for which `predicate` is true (that message is not delivered yet).
    func hold(when predicate: @escaping @Sendable (TransferMessage) -> Bool) {
        holdWhen = predicate
    }

    /// Called by the pump before it delivers `buffer`: waits there while the gate holds it.
    func pass(_ buffer: ByteBuffer) async {
        guard let holdWhen, let message = try? TransferMessage(decoding: buffer), holdWhen(message) else { return }
        self.holdWhen = nil
        isHolding = true
        for watcher in watchers.values { watcher.resume(returning: true) }
        watchers.removeAll()
        await withCheckedContinuation { pump = $0 }
    }

    /// Whether the gate holds a message, now or within `timeout`.
    func held(within timeout: Duration = .seconds(30)) async -> Bool {
        if isHolding { return true }
        let number = nextWatcher
        nextWatcher += 1
        let deadline = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.giveUp(number)
        }
        defer { deadline.cancel() }
        return await withCheckedContinuation { watchers[number] = $0 }
    }

    private func giveUp(_ number: Int) {
        watchers.removeValue(forKey: number)?.resume(returning: false)
    }

    /// Lets the held message, and everything after it, through.
    func release() {
        isHolding = false
        holdWhen = nil
        pump?.resume()
        pump = nil
    }
}
