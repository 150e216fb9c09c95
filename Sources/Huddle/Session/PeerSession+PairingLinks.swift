import Foundation
import HuddleTransport
import HuddleWire
import NIOCore

extension PeerSession {
    /// Issues a pairing link (`docs/wire-protocol.md` §5.8): whoever uses it with ``pair(using:timeout:)`` within
    /// `lifetime` pairs with this device once, both pinning the other as verified, without comparing codes. Show it
    /// only to the device that should pair (a QR code on this screen): it is a secret, and it is not logged.
    ///
    /// - Parameters:
    ///   - hosts: the addresses the other device should dial (this host's, on the networks it shares with it);
    ///     the port is the one this session listens on.
    /// - Throws: ``PeerSessionError/notAllowedInMode(_:)`` when the session does not listen (client mode, or not
    ///   started).
    public func issuePairingLink(lifetime: Duration = .seconds(600), hosts: [String]) throws -> PairingLink {
        guard let port = listener?.localAddress?.port else { throw PeerSessionError.notAllowedInMode(mode) }
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<PairingLinkProof.secretSize).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        pairingLinks.issue(secret: secret, lifetime: lifetime)
        let seconds = lifetime / .seconds(1)
        return PairingLink(
            device: identity.deviceID,
            name: displayName,
            addresses: hosts.map { PeerAddress(host: $0, port: port) },
            secret: secret,
            expires: Date(timeIntervalSinceNow: seconds)
        )
    }

    /// Pairs with the device `link` names: looks for it at the link's addresses (only that device is an answer
    /// there), then connects with the link's proof in place of a code. Both devices pin each other as verified.
    ///
    /// - Returns: the peer, connected.
    /// - Throws: ``PeerSessionError/connection(_:)`` with `pairingRejected(.linkRefused)` for a link that expired
    ///   or was used (also when it has expired here before any dial), `connectTimedOut` when the device did not
    ///   answer in `timeout`, ``PeerSessionError/notAllowedInMode(_:)`` in server mode.
    public func pair(using link: PairingLink, timeout: Duration = .seconds(60)) async throws -> PeerID {
        guard mode.browses else { throw PeerSessionError.notAllowedInMode(mode) }
        guard !link.hasExpired() else {
            throw PeerSessionError.connection(.wire(.pairingRejected(reason: .linkRefused)))
        }
        let deadline = clock.now + timeout
        let events = self.events
        for address in link.addresses { await directPeers.add(address, expecting: link.device) }
        let peer = try await foundPeer(of: link.device, in: events, until: deadline)
        guard let address = machine.address(of: peer) else { throw PeerSessionError.unknownPeer(peer) }
        try await dial(
            peer,
            at: address,
            expecting: link.device,
            until: deadline,
            context: [],
            purpose: .linkPairing(secret: link.secret)
        )
        return peer
    }

    /// The first peer of `device` the session knows with an address, now or from `events` before `deadline`.
    private func foundPeer(
        of device: DeviceID,
        in events: PeerSessionEvents,
        until deadline: ContinuousClock.Instant
    ) async throws -> PeerID {
        if let known = machine.dialablePeer(of: device) { return known }
        let clock = self.clock
        return try await withThrowingTaskGroup(of: PeerID?.self) { group in
            group.addTask {
                for await event in events {
                    if case .peerFound(let info) = event, info.deviceID == device { return info.id }
                }
                return nil
            }
            group.addTask {
                try await clock.sleep(until: deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let peer = first else {
                throw PeerSessionError.connectTimedOut(PeerID(rawValue: device.shortID))
            }
            return peer
        }
    }
}
