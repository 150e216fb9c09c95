public import Foundation
public import Huddle
import HuddleTransport
import Testing

/// Records a session's events and lets a test await the one it needs (see ``EventRecorder``).
public final class SessionProbe: Sendable {
    public let session: PeerSession
    public let recorder: EventRecorder<PeerSessionEvent>

    public init(_ session: PeerSession) {
        self.session = session
        recorder = EventRecorder(recording: session.events)
    }

    public var events: [PeerSessionEvent] { recorder.events }

    /// The first value `match` finds among the events recorded so far or arriving within `seconds`.
    public func wait<T>(seconds: Double = 30, _ match: (PeerSessionEvent) -> T?) async -> T? {
        await recorder.first(within: .seconds(seconds), where: match)
    }

    /// Drops what was recorded so far.
    public func clear() { recorder.clear() }

    /// Forgets what was recorded up to and including `peer`'s change to `state`, waiting for that change first
    /// (``EventRecorder/clear(within:through:)``): no event emitted before it can be taken for a later one.
    public func clear(through peer: PeerID, _ state: PeerState, seconds: Double = 30) async -> Bool {
        await recorder.clear(within: .seconds(seconds)) {
            if case .stateChanged(peer, state) = $0 { return true }
            return false
        }
    }

    /// Stops the session and the recording.
    public func stop() async {
        await session.stop()
        recorder.stop()
    }

    public func request(direction: PeerConnectionRequest.Direction) async -> PeerConnectionRequest? {
        await wait {
            if case .connectionRequest(let request) = $0, request.direction == direction { return request }
            return nil
        }
    }

    public func found(named name: String, seconds: Double = 30) async -> PeerInfo? {
        await wait(seconds: seconds) {
            if case .peerFound(let info) = $0, info.displayName == name { return info }
            return nil
        }
    }

    public func state(_ peer: PeerID, _ state: PeerState, seconds: Double = 30) async -> Bool {
        await wait(seconds: seconds) {
            if case .stateChanged(peer, state) = $0 { return true }
            return nil
        } ?? false
    }

    public func message(from peer: PeerID) async -> String? {
        await wait {
            if case .received(let bytes, peer, _) = $0 { return String(decoding: bytes, as: UTF8.self) }
            return nil
        }
    }

    /// Waits for a message from `peer` with exactly this text.
    public func message(from peer: PeerID, equalTo text: String) async -> Bool {
        await wait {
            if case .received(let bytes, peer, _) = $0, bytes == Array(text.utf8) { return true }
            return nil
        } ?? false
    }

    public func messages(from peer: PeerID) -> [[UInt8]] {
        events.compactMap {
            if case .received(let bytes, peer, _) = $0 { return bytes }
            return nil
        }
    }

    /// The next file offered to this session.
    public func offer() async -> IncomingTransfer? {
        await wait { event in
            if case .transferOffered(let transfer) = event { return transfer }
            return nil
        }
    }

    /// The URL of the next transfer this session received and kept.
    public func finished() async -> URL? {
        await wait(seconds: 30) { event in
            if case .transferFinished(_, _, let url) = event { return url }
            return nil
        }
    }

    /// The reason of the next transfer that failed on this side.
    public func failure() async -> String? {
        await wait { event in
            if case .transferFailed(_, _, let error) = event, error.code == .transferFailed { return error.reason }
            return nil
        }
    }

    /// Waits until a transfer to or from this session has passed `bytes`.
    public func transferProgress(atLeast bytes: UInt64) async {
        _ = await wait(seconds: 30) { event -> Bool? in
            if case .transferProgress(let progress) = event, progress.completed >= bytes { return true }
            return nil
        }
    }
}
