import HuddleTransport
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore

/// The connected peers' channels, and the bytes received but not yet taken by every subscriber of the session's
/// events (``EventBroadcast``) or written to disk.
///
/// Counting starts on the event loop, when a connection has a whole message (``PeerReceiveGate``), so the
/// connection that pushes a total over its budget stops reading at once. Two totals have a budget each:
/// - messages not yet taken from ``PeerSessionEvents`` (``PeerSessionConfiguration/maximumUndeliveredBytes``);
/// - transfer data not yet written to disk (``TransferConfiguration/maximumBufferedBytes``): the resource stream
///   counts from its arrival until the file writer has written (and hashed) it, so a disk or hash slower than the
///   network stops the socket instead of growing a queue.
///
/// A connection paused by one total resumes when that total has fallen to half its budget and the other total
/// does not hold it paused too.
///
/// Transfer data received also counts against the receive limits (``TransferRateLimits``): a resource message
/// that a limit says came too soon pauses its connection until the limit allows it, so TCP holds the sender to the
/// rate (docs/design.md, "Bandwidth limits").
///
/// Bytes are counted out here alone: what the gate counted in becomes a ``ReceiveCharge`` as soon as the session
/// sees it (``charge(message:)``, ``charge(resource:)``, ``admitDatagram(_:)``), and the charge goes along with
/// the bytes — into the event broadcast until every subscriber took them, into a file's writer until written —
/// and counts them out when it is let go of. A message dropped anywhere counts out by being dropped.
final class ReceiveFlow: PeerReceiveGate {
    /// One total: the bytes it holds against its budget, the most it held, and the connections it paused.
    struct Tally {
        let budget: Int
        var held = 0
        var peak = 0
        var paused: [ObjectIdentifier: any Channel] = [:]

        /// Counts `count` bytes in; past the budget, `channel` is paused (true).
        mutating func add(_ count: Int, from channel: any Channel) -> Bool {
            held += count
            peak = max(peak, held)
            guard held > budget else { return false }
            paused[ObjectIdentifier(channel)] = channel
            return true
        }

        /// Counts `count` bytes out; at half the budget, the connections this total paused that `other` does not
        /// hold paused too are let go and returned, to resume.
        mutating func remove(_ count: Int, unlessPausedBy other: Tally) -> [any Channel] {
            held -= count
            guard !paused.isEmpty, held <= budget / 2 else { return [] }
            defer { paused.removeAll() }
            return paused.filter { other.paused[$0.key] == nil }.map(\.value)
        }
    }

    struct State {
        var channels: [PeerID: any Channel] = [:]
        /// The protocol version of each peer's latest connection, kept after it ends (its unsent messages were
        /// written for it).
        var versions: [PeerID: UInt8] = [:]
        /// Messages and datagrams not yet taken by every subscriber.
        var messages: Tally
        /// Transfer data not yet written.
        var resources: Tally
        var datagramsOverBudget: UInt64 = 0
        /// The device at the other end of each channel, for its receive limit.
        var devices: [ObjectIdentifier: DeviceID] = [:]
        /// The connections paused by a receive limit, and until when: the latest of their bytes' waits.
        var ratePaused: [ObjectIdentifier: ContinuousClock.Instant] = [:]
    }

    let state: NIOLockedValueBox<State>
    /// Told of each pause (``PeerSessionConfiguration/receivePaused``).
    let paused: (@Sendable (any Channel) -> Void)?

    /// The bandwidth limits, both ways: the receive side is applied here, the send side by the sender.
    let pacing: TransferPacing
    /// The time the limits are reckoned in.
    let now: @Sendable () -> ContinuousClock.Instant

    init(
        budget: Int,
        transferBudget: Int = 4 * 1024 * 1024,
        pacing: TransferPacing = TransferPacing(TransferRateLimits()),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        paused: (@Sendable (any Channel) -> Void)? = nil
    ) {
        state = NIOLockedValueBox(State(messages: Tally(budget: budget), resources: Tally(budget: transferBudget)))
        (self.pacing, self.now, self.paused) = (pacing, now, paused)
    }

    var undelivered: Int { state.withLockedValue { $0.messages.held } }

    /// Transfer bytes received and not yet written, now and at most so far.
    var bufferedTransferBytes: (now: Int, peak: Int) {
        state.withLockedValue { ($0.resources.held, $0.resources.peak) }
    }

    func channel(for peer: PeerID) -> (any Channel)? { state.withLockedValue { $0.channels[peer] } }

    /// The channel and protocol version of `peer`'s connection, while it is connected.
    func link(to peer: PeerID) -> (channel: any Channel, version: UInt8)? {
        state.withLockedValue { state in state.channels[peer].map { ($0, state.versions[peer] ?? 2) } }
    }

    /// The protocol version of `peer`'s latest connection (2 before any).
    func version(of peer: PeerID) -> UInt8 { state.withLockedValue { $0.versions[peer] ?? 2 } }

    func connected(_ peer: PeerID, channel: any Channel, device: DeviceID? = nil, version: UInt8 = 2) {
        state.withLockedValue { state in
            state.channels[peer] = channel
            state.versions[peer] = version
            state.devices[ObjectIdentifier(channel)] = device
        }
    }

    /// The device `peer` is, while it is connected.
    func device(of peer: PeerID) -> DeviceID? {
        state.withLockedValue { state in state.channels[peer].flatMap { state.devices[ObjectIdentifier($0)] } }
    }

    /// `peer` has no channel from now on. `channel` is the one the rules opened for it (``connected(_:channel:)``),
    /// nil when that connection's I/O is gone already; the rules track which one it is, so it is not compared.
    func disconnected(_ peer: PeerID, channel: (any Channel)?) {
        state.withLockedValue { state in
            state.channels[peer] = nil
            if let channel {
                state.messages.paused[ObjectIdentifier(channel)] = nil
                state.resources.paused[ObjectIdentifier(channel)] = nil
                state.devices[ObjectIdentifier(channel)] = nil
                state.ratePaused[ObjectIdentifier(channel)] = nil
            }
        }
    }

    func received(_ count: Int, on channel: any Channel) -> Bool {
        let pause = state.withLockedValue { $0.messages.add(count, from: channel) }
        if pause { paused?(channel) }
        return pause
    }

    func receivedResource(_ count: Int, on channel: any Channel) -> Bool {
        let key = ObjectIdentifier(channel)
        let (pause, wait) = state.withLockedValue { state in
            let pause = state.resources.add(count, from: channel)
            let wait = pacing.admit(count, .receiving, device: state.devices[key], now: now())
            if let wait { state.ratePaused[key] = max(wait, state.ratePaused[key] ?? wait) }
            return (pause, wait)
        }
        if pause { paused?(channel) }
        if let wait {
            // A read cycle takes up to `maxMessagesPerRead` reads before the pause holds: under a receive limit
            // the connection reads one at a time from now on, so a limit lets at most one read through early.
            try? channel.syncOptions?.setOption(.maxMessagesPerRead, value: 1)
            let delay = TimeAmount(max(.zero, wait - now()))
            channel.eventLoop.scheduleTask(in: delay) { self.rateAllows(channel) }
        }
        return pause || wait != nil
    }

    /// A receive limit's wait for `channel` may be over: it reads again unless a later wait or a total holds it
    /// paused. A timer early by the event loop's clock against the session's waits again for the rest.
    private func rateAllows(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        let now = now()
        let (resume, rest) = state.withLockedValue { state -> (Bool, Duration?) in
            guard let until = state.ratePaused[key] else { return (false, nil) }
            guard until <= now else { return (false, now.duration(to: until)) }
            state.ratePaused[key] = nil
            return (state.messages.paused[key] == nil && state.resources.paused[key] == nil, nil)
        }
        if let rest { channel.eventLoop.scheduleTask(in: TimeAmount(rest)) { self.rateAllows(channel) } }
        if resume { channel.setOption(.autoRead, value: true).whenComplete { _ in } }
    }

    /// A datagram payload of `count` bytes is about to be handed to the subscribers: it counts like a message when
    /// the total stays within the budget, until its charge is let go of. Past the budget it is dropped (nil) and
    /// counted in ``datagramsOverBudget``: datagrams may be lost, and a flood of them must not pause the
    /// connections.
    func admitDatagram(_ count: Int) -> ReceiveCharge? {
        let admitted = state.withLockedValue { state in
            guard state.messages.held + count <= state.messages.budget else {
                state.datagramsOverBudget += 1
                return false
            }
            state.messages.held += count
            return true
        }
        return admitted ? ReceiveCharge(count, of: .message, in: self) : nil
    }

    /// The charge of a whole message of `count` bytes that ``received(_:on:)`` counted in.
    func charge(message count: Int) -> ReceiveCharge { ReceiveCharge(count, of: .message, in: self) }

    /// The charge of a message of the resource stream of `count` bytes that ``receivedResource(_:on:)`` counted in.
    func charge(resource count: Int) -> ReceiveCharge { ReceiveCharge(count, of: .resource, in: self) }

    /// Datagrams dropped because the slowest subscriber had fallen a whole budget behind.
    var datagramsOverBudget: UInt64 { state.withLockedValue { $0.datagramsOverBudget } }

    /// A charge of `count` bytes of `total` was let go of: the connections that total alone held paused resume
    /// once it has fallen to half its budget.
    fileprivate func countOut(_ count: Int, of total: ReceiveCharge.Total) {
        let resume: [any Channel] = state.withLockedValue { state in
            let resume =
                switch total {
                case .message: state.messages.remove(count, unlessPausedBy: state.resources)
                case .resource: state.resources.remove(count, unlessPausedBy: state.messages)
                }
            // One a receive limit holds reads again when the limit allows it (``rateAllows(_:)``).
            return resume.filter { state.ratePaused[ObjectIdentifier($0)] == nil }
        }
        for channel in resume { channel.setOption(.autoRead, value: true).whenComplete { _ in } }
    }
}

/// Received bytes counted against one of ``ReceiveFlow``'s totals, counted out when the last holder lets go of the
/// charge. Whatever holds the bytes holds their charge: the event broadcast (``EventBroadcast``, until every
/// subscriber took the message), a file's writer (until written), or the code handling them (until it returns).
final class ReceiveCharge: Sendable {
    /// Which budget the bytes count against.
    enum Total: Sendable {
        /// Messages and datagrams not yet taken by every subscriber.
        case message
        /// Transfer data not yet written.
        case resource
    }

    let count: Int
    let total: Total
    private let flow: ReceiveFlow

    fileprivate init(_ count: Int, of total: Total, in flow: ReceiveFlow) {
        self.count = count
        self.total = total
        self.flow = flow
    }

    deinit { flow.countOut(count, of: total) }
}
