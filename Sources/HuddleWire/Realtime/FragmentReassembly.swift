/// Unreliable messages larger than one datagram, rebuilt from their fragments all or nothing, in bounded memory
/// (`docs/realtime.md`, "Large unreliable messages").
///
/// A message is cut into `count` fragments (at most ``Limits/maximumFragments``), each carrying the message's
/// number, its own index and the count. The message is delivered once every index has arrived, in any order;
/// a message some of whose fragments were lost is never delivered in part. What waits is bounded three ways, so a
/// flood of first fragments costs at most ``Limits/maximumPendingBytes``:
///
/// - at most ``Limits/maximumPendingMessages`` messages wait at once; one more drops the oldest;
/// - their bytes together stay within ``Limits/maximumPendingBytes``; the oldest are dropped to make room;
/// - a message waits at most ``Limits/timeout`` after its first fragment (``expire(now:)``).
///
/// Pure: time comes in as `now`, a monotonic duration since any fixed start.
public struct FragmentReassembly: Sendable {
    public struct Limits: Hashable, Sendable {
        /// The largest message, in bytes: 64 KiB.
        public var maximumMessageBytes = 64 * 1024
        /// The most fragments of one message.
        public var maximumFragments = 64
        /// How many messages may wait for fragments at once.
        public var maximumPendingMessages = 32
        /// The bytes of all waiting fragments together.
        public var maximumPendingBytes = 256 * 1024
        /// How long a message waits for its last fragment after its first.
        public var timeout = Duration.seconds(1)

        public init() {}
    }

    /// One fragment as it came off the wire.
    public struct Fragment: Hashable, Sendable {
        public var message: UInt32
        public var index: UInt16
        public var count: UInt16
        public var bytes: [UInt8]

        public init(message: UInt32, index: UInt16, count: UInt16, bytes: [UInt8]) {
            (self.message, self.index, self.count, self.bytes) = (message, index, count, bytes)
        }
    }

    /// What one fragment did.
    public enum Outcome: Hashable, Sendable {
        /// The message is whole: its bytes, in order.
        case complete([UInt8])
        /// Kept; the message waits for more.
        case pending
        /// Not kept, and why.
        case dropped(DropReason)
    }

    public enum DropReason: Hashable, Sendable {
        /// The index is not below the count, the count is 0 or over the limit, or the count differs from the one
        /// the message's first fragment gave.
        case malformed
        /// That index of that message arrived already.
        case duplicate
        /// The message would be over ``Limits/maximumMessageBytes``; what had arrived of it is dropped too.
        case tooLarge
    }

    private struct Pending: Sendable {
        var count: UInt16
        var fragments: [UInt16: [UInt8]] = [:]
        var bytes = 0
        var started: Duration
    }

    public let limits: Limits
    private var pending: [UInt32: Pending] = [:]
    /// Waiting messages, oldest first.
    private var order: [UInt32] = []
    /// The bytes of every waiting fragment.
    public private(set) var pendingBytes = 0
    /// Messages dropped unfinished: timed out, or pushed out by newer ones.
    public private(set) var abandoned: UInt64 = 0

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// How many messages wait for fragments.
    public var pendingMessages: Int { order.count }

    /// Takes one fragment received at `now`.
    public mutating func add(_ fragment: Fragment, now: Duration) -> Outcome {
        expire(now: now)
        guard fragment.count >= 1, Int(fragment.count) <= limits.maximumFragments, fragment.index < fragment.count,
            fragment.bytes.count <= limits.maximumMessageBytes
        else { return .dropped(.malformed) }
        if fragment.count == 1 {
            guard pending[fragment.message] == nil else { return .dropped(.malformed) }
            return .complete(fragment.bytes)
        }
        var entry = pending[fragment.message] ?? Pending(count: fragment.count, started: now)
        guard entry.count == fragment.count else {
            forget(fragment.message)
            return .dropped(.malformed)
        }
        guard entry.fragments[fragment.index] == nil else { return .dropped(.duplicate) }
        guard entry.bytes + fragment.bytes.count <= limits.maximumMessageBytes else {
            forget(fragment.message)
            return .dropped(.tooLarge)
        }
        entry.fragments[fragment.index] = fragment.bytes
        entry.bytes += fragment.bytes.count
        if entry.fragments.count == Int(entry.count) {
            forget(fragment.message)
            return .complete((0..<entry.count).flatMap { entry.fragments[$0]! })
        }
        if pending[fragment.message] == nil {
            order.append(fragment.message)
        } else {
            pendingBytes -= pending[fragment.message]!.bytes
        }
        pending[fragment.message] = entry
        pendingBytes += entry.bytes
        makeRoom(keeping: fragment.message)
        return .pending
    }

    /// Drops the messages that have waited longer than ``Limits/timeout``.
    public mutating func expire(now: Duration) {
        while let oldest = order.first, let entry = pending[oldest], now - entry.started > limits.timeout {
            forget(oldest)
            abandoned += 1
        }
    }

    /// Drops the oldest waiting messages other than `kept` until the bounds hold.
    private mutating func makeRoom(keeping kept: UInt32) {
        while order.count > limits.maximumPendingMessages || pendingBytes > limits.maximumPendingBytes,
            let oldest = order.first(where: { $0 != kept })
        {
            forget(oldest)
            abandoned += 1
        }
    }

    private mutating func forget(_ message: UInt32) {
        guard let entry = pending.removeValue(forKey: message) else { return }
        pendingBytes -= entry.bytes
        order.removeAll { $0 == message }
    }
}
