/// A connection's number in one session, given when it is dialled or accepted and never reused: the rules, the I/O
/// of each connection, its datagram link and a `connect` call waiting for its dial are all found by it.
struct ConnectionID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    let rawValue: Int

    init(rawValue: Int) { self.rawValue = rawValue }
    init(integerLiteral value: Int) { rawValue = value }

    var description: String { String(rawValue) }
    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A background task's number in the session's table of tasks (``PeerSession/tasks``): it leaves the table when
/// it ends, and a timer that is no longer needed is cancelled by it.
struct TaskNumber: Hashable, Sendable, CustomStringConvertible {
    let rawValue: Int

    var description: String { "task #\(rawValue)" }
}
