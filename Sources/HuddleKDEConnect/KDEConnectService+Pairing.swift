import Crypto
import Foundation
public import HuddleForeign
import HuddleKDEConnectWire
import Logging
import NIOConcurrencyHelpers
import NIOCore

extension KDEConnectService {
    /// Asks `peer` to pair and waits for its answer (30 s), then for the user's confirmation (30 s more). The
    /// verification key is told at once (`pairingStarted`), for the user to compare with the one the other device
    /// shows; when the device accepts, `pairingConfirmation` asks the user to confirm it with
    /// ``answerPairing(_:accept:)``. The device's yes alone pairs nothing.
    /// - Throws: ``KDEConnectError/notPaired(_:reason:)`` when the device refused, or did not answer.
    public func requestPairing(with peer: ForeignPeer) async throws {
        let timestamp = Int64(Date().timeIntervalSince1970)
        let now = self.now
        let paired = await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
            let decided = state.withLockedValue { state -> Decided? in
                guard var device = state.devices.device(peer), device.link != nil else { return nil }
                let actions = device.pairing.request(at: now, timestamp: timestamp)
                if !actions.contains(.paired) { device.pairWaiters.append(waiter) }
                state.devices.update(device)
                return Decided(actions: actions, device: device)
            }
            guard let decided else {
                waiter.resume(returning: false)
                return
            }
            perform(decided)
            if decided.actions.contains(.paired) { waiter.resume(returning: true) }
        }
        guard paired else {
            throw KDEConnectError.notPaired(peer.name, reason: "the device refused, did not answer, or went away")
        }
    }

    /// Answers a device's request to pair, or confirms the key of a request of ours it accepted (after the user
    /// compared the verification keys). The answer is for the certificate the question showed: when another
    /// certificate has taken the device's ID since, it is dropped.
    public func answerPairing(_ peer: ForeignPeer, accept: Bool) {
        let decided = state.withLockedValue { state -> Decided? in
            guard var device = state.devices.device(peer) else { return nil }
            let actions = device.pairing.answer(accept: accept)
            state.devices.update(device)
            return Decided(actions: actions, device: device)
        }
        if let decided { perform(decided) }
    }

    /// Lets pairing requests lapse after 30 s.
    func tick() {
        let now = self.now
        let due = state.withLockedValue { state in
            state.devices.devices.values.compactMap { held -> Decided? in
                var device = held
                let actions = device.pairing.tick(at: now)
                state.devices.update(device)
                return actions.isEmpty ? nil : Decided(actions: actions, device: device)
            }
        }
        for decided in due { perform(decided) }
    }

    /// A `kdeconnect.pair` packet on `channel`: it speaks for the device that holds that link now.
    func pairPacketArrived(_ packet: KDEConnectPacket, on channel: any Channel) {
        guard let pair = packet.body["pair"]?.bool else { return }
        let timestamp = packet.body["timestamp"]?.int64
        let now = self.now
        let decided = state.withLockedValue { state -> Decided? in
            guard var device = state.devices.device(on: channel) else { return nil }
            let actions = device.pairing.received(
                pair: pair,
                timestamp: timestamp,
                at: now,
                clock: Int64(Date().timeIntervalSince1970)
            )
            state.devices.update(device)
            return Decided(actions: actions, device: device)
        }
        if let decided { perform(decided) }
    }

    /// What the pairing rules decided for a device, with the device as it was when they did.
    struct Decided {
        let actions: [KDEConnectPairing.Action]
        let device: Device
    }

    /// Carries out what the pairing rules decided, for the certificate they decided it for.
    func perform(_ decided: Decided) {
        let device = decided.device
        let deviceId = device.identity.deviceId
        let peer = self.peer(device)
        for action in decided.actions {
            switch action {
            case .send(let pair, let timestamp):
                var body: [String: KDEConnectJSON] = ["pair": .bool(pair)]
                if let timestamp { body["timestamp"] = .number(Double(timestamp)) }
                send(
                    KDEConnectPacket(type: "kdeconnect.pair", body: body),
                    to: deviceId,
                    certificate: device.certificate
                )
                if pair, timestamp != nil { emit(.pairingStarted(peer, verificationKey: verificationKey(device))) }
            case .askUser:
                emit(.pairingRequested(peer, verificationKey: verificationKey(device)))
            case .confirmUser:
                emit(.pairingConfirmation(peer, verificationKey: verificationKey(device)))
            case .paired:
                do {
                    try pins.pin(peer)
                } catch {
                    // Paired for this run; the next start meets the device as unpinned and asks again.
                    configuration.logger.warning(
                        "KDE Connect: the pairing with \(peer.name) could not be kept: \(error)",
                        metadata: ["file": "\(pins.file.path)"]
                    )
                }
                emit(.paired(peer))
                resumeWaiters(deviceId, true)
            case .unpaired:
                if let fingerprint = peer.fingerprint {
                    do {
                        try pins.unpin(.kdeConnect, fingerprint: fingerprint)
                    } catch {
                        // Still pinned on disk: the device is known at the next start, though it unpaired.
                        configuration.logger.warning(
                            "KDE Connect: the unpairing of \(peer.name) could not be kept: \(error)",
                            metadata: ["file": "\(pins.file.path)"]
                        )
                    }
                }
                emit(.pairingEnded(peer, reason: "\(peer.name) unpaired"))
                resumeWaiters(deviceId, false)
            case .failed(let reason):
                emit(.pairingEnded(peer, reason: reason))
                resumeWaiters(deviceId, false)
            }
        }
    }

    func resumeWaiters(_ deviceId: String, _ paired: Bool) {
        let waiters = state.withLockedValue { $0.devices.takeWaiters(of: deviceId) }
        for waiter in waiters { waiter.resume(returning: paired) }
    }

    /// The key both screens show: from both public keys, and from version 8 on the request's timestamp.
    func verificationKey(_ device: Device) -> String {
        guard let theirs = device.certificate?.subjectPublicKeyInfo else { return "?" }
        let ours = Array(credentials.privateKey.publicKey.derRepresentation)
        let v8 = device.identity.protocolVersion >= 8 && configuration.protocolVersion >= 8
        return KDEConnectVerificationKey.compute(ours, theirs, timestamp: v8 ? device.pairing.requestTimestamp : nil)
    }
}
