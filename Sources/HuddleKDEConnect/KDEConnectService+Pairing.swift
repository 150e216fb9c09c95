import Crypto
import Foundation
public import HuddleForeign
import HuddleKDEConnectWire
import NIOConcurrencyHelpers

extension KDEConnectService {
    /// Asks `peer` to pair and waits for its answer (30 s). The verification key is told at once
    /// (`pairingStarted`), for the user to compare with the one the other device shows.
    /// - Throws: ``KDEConnectError/notPaired(_:reason:)`` when the device refused, or did not answer.
    public func requestPairing(with peer: ForeignPeer) async throws {
        let timestamp = Int64(Date().timeIntervalSince1970)
        let now = self.now
        let paired = await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
            let actions = state.withLockedValue { state -> [KDEConnectPairing.Action]? in
                guard state.devices[peer.id.value]?.link != nil else { return nil }
                let actions = state.devices[peer.id.value]?.pairing.request(at: now, timestamp: timestamp) ?? []
                if actions.contains(.paired) { return actions }
                state.devices[peer.id.value]?.pairWaiters.append(waiter)
                return actions
            }
            guard let actions else {
                waiter.resume(returning: false)
                return
            }
            perform(actions, for: peer.id.value)
            if actions.contains(.paired) { waiter.resume(returning: true) }
        }
        guard paired else {
            throw KDEConnectError.notPaired(peer.name, reason: "the device refused, did not answer, or went away")
        }
    }

    /// Answers a device's request to pair (after the user compared the verification keys).
    public func answerPairing(_ peer: ForeignPeer, accept: Bool) {
        let actions = state.withLockedValue { $0.devices[peer.id.value]?.pairing.answer(accept: accept) ?? [] }
        perform(actions, for: peer.id.value)
    }

    /// Lets pairing requests lapse after 30 s.
    func tick() {
        let now = self.now
        let due = state.withLockedValue { state in
            state.devices.keys.map { id in (id, state.devices[id]?.pairing.tick(at: now) ?? []) }
        }
        for (id, actions) in due where !actions.isEmpty { perform(actions, for: id) }
    }

    func pairPacketArrived(_ packet: KDEConnectPacket, from deviceId: String) {
        guard let pair = packet.body["pair"]?.bool else { return }
        let timestamp = packet.body["timestamp"]?.int64
        let now = self.now
        let actions = state.withLockedValue {
            $0.devices[deviceId]?.pairing.received(pair: pair, timestamp: timestamp, at: now) ?? []
        }
        perform(actions, for: deviceId)
    }

    /// Carries out what the pairing rules decided.
    func perform(_ actions: [KDEConnectPairing.Action], for deviceId: String) {
        guard let device = state.withLockedValue({ $0.devices[deviceId] }) else { return }
        let peer = self.peer(device)
        for action in actions {
            switch action {
            case .send(let pair, let timestamp):
                var body: [String: KDEConnectJSON] = ["pair": .bool(pair)]
                if let timestamp { body["timestamp"] = .number(Double(timestamp)) }
                send(KDEConnectPacket(type: "kdeconnect.pair", body: body), to: deviceId)
                if pair, timestamp != nil { emit(.pairingStarted(peer, verificationKey: verificationKey(device))) }
            case .askUser:
                emit(.pairingRequested(peer, verificationKey: verificationKey(device)))
            case .paired:
                _ = try? pins.pin(peer)
                emit(.paired(peer))
                resumeWaiters(deviceId, true)
            case .unpaired:
                if let fingerprint = peer.fingerprint { try? pins.unpin(.kdeConnect, fingerprint: fingerprint) }
                emit(.pairingEnded(peer, reason: "\(peer.name) unpaired"))
                resumeWaiters(deviceId, false)
            case .failed(let reason):
                emit(.pairingEnded(peer, reason: reason))
                resumeWaiters(deviceId, false)
            }
        }
    }

    func resumeWaiters(_ deviceId: String, _ paired: Bool) {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Bool, Never>] in
            defer { state.devices[deviceId]?.pairWaiters = [] }
            return state.devices[deviceId]?.pairWaiters ?? []
        }
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
