public import Huddle
import HuddleTransport
public import HuddleWire

/// The wait after a pairing link is issued, shared by `huddle pair` and the daemon (docs/threat-model.md,
/// "Pairing links"): until a device uses the link or it expires, with the lines both print.
public struct PairingLinkWait: Sendable {
    let session: PeerSession
    /// Subscribed before the link is issued, so that a device quick to use it is not missed.
    let events: PeerSessionEvents
    let seconds: Int

    public init(session: PeerSession, events: PeerSessionEvents, seconds: Int) {
        (self.session, self.events, self.seconds) = (session, events, seconds)
    }

    /// What is said above the link.
    public var heading: String {
        "Pairing link for \(session.displayName) (\(session.identity.deviceID.shortID)), for one device, valid "
            + "\(seconds / 60) min:"
    }

    /// Waits for the link's use: the line saying who paired, or nil when the link expired unused. `request` is
    /// given each connection request meanwhile (a link holder whose name looks like a paired device's is asked
    /// about).
    ///
    /// - Throws: `CancellationError` when the wait is interrupted.
    public func paired(
        requests: @escaping @Sendable (PeerConnectionRequest) -> Void = { _ in }
    ) async throws
        -> String?
    {
        let deadline = ContinuousClock.now + .seconds(seconds)
        let used = try await events.first(until: deadline) { event -> (PeerID, DeviceID)? in
            switch event {
            case .pairedByLink(let peer, let device): return (peer, device)
            case .connectionRequest(let request):
                requests(request)
                return nil
            default: return nil
            }
        }
        guard let (peer, device) = used else { return nil }
        let name = await session.displayName(for: peer) ?? peer.rawValue
        return Self.pairedLine(name: name, device: device)
    }

    /// `* paired with Bob (0A1B2C3) by the pairing link: verified`.
    public static func pairedLine(name: String, device: DeviceID) -> String {
        "* paired with \(name) (\(device.shortID)) by the pairing link: verified"
    }
}
