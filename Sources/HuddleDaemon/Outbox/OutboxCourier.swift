import Foundation
import Huddle
import HuddleApp
import HuddleErrors
import HuddleWire
import NIOConcurrencyHelpers

/// Delivers the outbox (docs/daemon.md, "Outbox"): whenever a queued entry's device is among the session's peers,
/// connects to it, checks that TLS proved the entry's device ID, and sends; a delivered entry leaves the queue, a
/// failed one waits (``OutboxSchedule``) and is tried again.
struct OutboxCourier: Sendable {
    let daemon: Daemon
    /// How often the courier looks even when nothing happened (a device reached at a remembered address).
    static let idleLook: Duration = .seconds(30)

    func run() async {
        var schedule = OutboxSchedule<ContinuousClock.Instant>()
        // One stream of reasons to look again: a peer found or connected, the queue grown, the next try due.
        let wake = daemon.courierWake
        let events = daemon.courierEvents
        let forwarder = Task {
            for await event in events {
                switch event {
                case .peerFound, .stateChanged: wake.yield()
                default: continue
                }
            }
        }
        defer { forwarder.cancel() }
        var wakes = daemon.courierWakes.makeAsyncIterator()
        while !Task.isCancelled {
            let now = ContinuousClock.now
            for entry in daemon.outbox.entries {
                guard let peer = await peer(for: entry.deviceID) else { continue }
                schedule.found(entry.id, now: now)
                guard schedule.takeIfDue(entry.id, now: now) else { continue }
                if await deliver(entry, to: peer) {
                    schedule.forget(entry.id)
                } else {
                    schedule.failed(entry.id, now: .now)
                }
            }
            let until = min(schedule.nextDue ?? .now + Self.idleLook, .now + Self.idleLook)
            let timer = Task {
                try await Task.sleep(until: until, clock: .continuous)
                wake.yield()
            }
            _ = await wakes.next()
            timer.cancel()
        }
    }

    /// The session's peer whose (claimed) device ID is `deviceID`.
    func peer(for deviceID: String) async -> PeerID? {
        guard let wanted = try? DeviceID(deviceID) else { return nil }
        for state in [PeerState.connected, .available, .connecting, .disconnected] {
            for peer in await daemon.session.peers(in: state)
            where await daemon.session.info(for: peer)?.deviceID == wanted {
                return peer
            }
        }
        return nil
    }

    /// One try: true when the entry was delivered (and has left the queue).
    func deliver(_ entry: OutboxEntry, to peer: PeerID) async -> Bool {
        let session = daemon.session
        let name = (entry.path as NSString).lastPathComponent
        do {
            if await session.info(for: peer)?.state != .connected {
                try await session.connect(to: peer, timeout: .seconds(30))
            }
            guard let info = await session.info(for: peer), info.deviceIDVerified,
                info.deviceID?.description == entry.deviceID
            else {
                throw DaemonError(.storage, "the peer there is not the paired device")
            }
        } catch {
            record(entry, failed: "could not connect: \(error)")
            return false
        }
        let lines = LinesBox()
        let failed = await HuddleDelivery(session: session, paths: [entry.path]).send(
            to: peer,
            named: entry.recipient
        ) { lines.add($0.text.line) }
        guard failed == 0 else {
            record(entry, failed: lines.all.joined(separator: "; "))
            return false
        }
        do {
            try daemon.outbox.remove(entry.id)
        } catch {
            daemon.log("\(error)")
        }
        daemon.log(
            "outbox: delivered \(name) to \(entry.recipient) (id \(entry.id)): " + lines.all.joined(separator: "; ")
        )
        return true
    }

    func record(_ entry: OutboxEntry, failed reason: String) {
        daemon.log(
            "outbox: \((entry.path as NSString).lastPathComponent) for \(entry.recipient) not delivered yet: \(reason)"
        )
        do {
            try daemon.outbox.failed(entry.id, error: reason)
        } catch {
            daemon.log("\(error)")
        }
    }
}

/// Lines collected from a synchronous callback.
final class LinesBox: Sendable {
    let lines = NIOLockedValueBox<[String]>([])
    func add(_ line: String) { lines.withLockedValue { $0.append(line) } }
    var all: [String] { lines.withLockedValue { $0 } }
}
