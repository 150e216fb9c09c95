public import HuddleWire
import NIOConcurrencyHelpers
public import NIOCore

/// The connection IDs the session's datagram links answer to, checked on the event loop before a packet is copied
/// or handed to the session (`docs/security.md` §3.7 receive order step 2, §5 C7). A packet too short to carry an
/// ID, or naming one no link has, is counted and dropped there: a flood of garbage costs a lock and a set lookup
/// per packet, not a copy and a trip through the session.
///
/// One exception keeps a new link's first packets: the peer may send as soon as its side of the handshake is done,
/// a moment before this side has set up the link's keys. So a few packets naming an unknown ID are held — at most
/// ``maximumHeld`` at once and that many copies a second, each for ``holdTime`` — and handed over by
/// ``allow(_:now:)`` when their link appears. A flood fills that small space and costs no more copies.
public final class DatagramFilter: Sendable {
    /// A packet kept for a link that may be about to appear.
    public struct Held: Sendable {
        public let bytes: [UInt8]
        public let source: SocketAddress
        let at: NIODeadline
    }

    static let maximumHeld = 8
    static let holdTime = TimeAmount.seconds(2)

    private struct State {
        var known: Set<DatagramConnectionID> = []
        var dropped: UInt64 = 0
        var held: [DatagramConnectionID: [Held]] = [:]
        var heldCount = 0
        /// The start of the current second of holding, and the copies made in it.
        var second = NIODeadline.uptimeNanoseconds(0)
        var copiesThisSecond = 0
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// Packets addressed to `id` are let through from now on.
    /// - Returns: the packets held for `id` that are still fresh, oldest first, for the session to open.
    @discardableResult
    public func allow(_ id: DatagramConnectionID, now: NIODeadline = .now()) -> [Held] {
        state.withLockedValue { state in
            state.known.insert(id)
            let held = state.held.removeValue(forKey: id) ?? []
            state.heldCount -= held.count
            return held.filter { now - $0.at <= Self.holdTime }
        }
    }

    /// Packets addressed to `id` are dropped from now on.
    public func forget(_ id: DatagramConnectionID) { state.withLockedValue { _ = $0.known.remove(id) } }

    /// Whether `packet` names a known link; counts it as dropped if not (it may be held for a link about to appear).
    public func admits(_ packet: ByteBuffer, from source: SocketAddress, now: NIODeadline = .now()) -> Bool {
        let id = DatagramConnectionID(destinationOf: packet)
        return state.withLockedValue { state in
            if let id, state.known.contains(id) { return true }
            state.dropped &+= 1
            if let id { Self.hold(packet, for: id, from: source, now: now, in: &state) }
            return false
        }
    }

    private static func hold(
        _ packet: ByteBuffer,
        for id: DatagramConnectionID,
        from source: SocketAddress,
        now: NIODeadline,
        in state: inout State
    ) {
        if now - state.second >= .seconds(1) { (state.second, state.copiesThisSecond) = (now, 0) }
        guard state.copiesThisSecond < maximumHeld else { return }
        if state.heldCount >= maximumHeld {
            // Make room from packets past their time; without any, the new packet is not held.
            for (key, packets) in state.held {
                let fresh = packets.filter { now - $0.at <= holdTime }
                state.heldCount -= packets.count - fresh.count
                state.held[key] = fresh.isEmpty ? nil : fresh
            }
            guard state.heldCount < maximumHeld else { return }
        }
        state.copiesThisSecond += 1
        state.held[id, default: []].append(Held(bytes: Array(packet.readableBytesView), source: source, at: now))
        state.heldCount += 1
    }

    /// How many packets were dropped for want of a known connection ID (held ones included).
    public var dropped: UInt64 { state.withLockedValue { $0.dropped } }

    /// How many packets are held for links that may appear.
    var heldCount: Int { state.withLockedValue { $0.heldCount } }
}
