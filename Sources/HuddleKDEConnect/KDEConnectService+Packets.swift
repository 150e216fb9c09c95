import Foundation
public import HuddleForeign
import HuddleKDEConnectWire
import HuddleWire
import NIOConcurrencyHelpers
import NIOCore

extension KDEConnectService {
    /// A packet on a link: pairing from anyone linked, everything else only from a paired device.
    func packetArrived(_ packet: KDEConnectPacket, on channel: any Channel) {
        if packet.type == "kdeconnect.pair" {
            pairPacketArrived(packet, on: channel)
            return
        }
        guard let device = state.withLockedValue({ $0.devices.device(on: channel) }) else { return }
        guard device.pairing.state == .paired else { return }
        let peer = self.peer(device)
        let limit = configuration.limits.maximumTextBytes
        switch packet.type {
        case "kdeconnect.share.request":
            if let text = packet.body["text"]?.string ?? packet.body["url"]?.string {
                if text.utf8.count <= limit { emit(.textReceived(text, from: peer)) }
            } else if let name = packet.body["filename"]?.string, let size = packet.payloadSize, size >= 0,
                let port = packet.payloadPort
            {
                offered(name, size: UInt64(size), port: port, from: device)
            }
        case "kdeconnect.clipboard", "kdeconnect.clipboard.connect":
            clipboardArrived(packet, from: peer)
        default:
            break
        }
    }

    /// A file a paired device offers: put to the user when this command takes offers.
    func offered(_ name: String, size: UInt64, port: Int, from device: Device) {
        guard configuration.takesOffers, let certificate = device.certificate else { return }
        let peer = self.peer(device)
        guard (try? TransferName.validate(name)) != nil else {
            emit(.failed(offerID: "", reason: "\(peer.name) offered a file named \(name.debugDescription): refused"))
            return
        }
        let id = Self.token()
        let file = ForeignOffer.File(id: id, name: name, size: size, mimeType: "application/octet-stream", sha256: nil)
        let offer = ForeignOffer(id: id, from: peer, files: [file], text: nil)
        state.withLockedValue { state in
            if state.offered.count >= 16, let oldest = state.offered.keys.first { state.offered[oldest] = nil }
            state.offered[id] = Offered(
                deviceId: device.identity.deviceId,
                host: device.host,
                certificate: certificate.der,
                port: port,
                offer: offer
            )
        }
        emit(.offered(offer))
    }

    public func answer(_ offer: ForeignOffer, with answer: ForeignOfferAnswer) async {
        guard let offered = state.withLockedValue({ $0.offered.removeValue(forKey: offer.id) }) else { return }
        guard case .accept(let directory) = answer else { return }
        do {
            try await download(offered, into: directory)
        } catch {
            emit(
                .failed(
                    offerID: offer.id,
                    reason: "\(offer.files.first?.name ?? "a file") from \(offer.from.name): \(error)"
                )
            )
        }
    }

    /// Sends a text (`kdeconnect.share.request` with `text`) to a paired device, pairing first if needed.
    public func send(text: String, to peer: ForeignPeer, pin: String?) async throws {
        let certificate = try await ensurePaired(peer)
        send(
            KDEConnectPacket(type: "kdeconnect.share.request", body: ["text": .string(text)]),
            to: peer.id.value,
            certificate: certificate
        )
    }

    /// Pairs first when `peer` is not paired (the user compares the key shown on both screens); returns the
    /// certificate it is paired with, the one everything sent to it is bound to.
    @discardableResult
    func ensurePaired(_ peer: ForeignPeer) async throws -> KDEConnectCertificate {
        let linked = state.withLockedValue { $0.devices.device(peer)?.link != nil }
        guard linked else { throw KDEConnectError.notLinked(peer.name) }
        if !isPaired(peer) { try await requestPairing(with: peer) }
        return try pairedCertificate(of: peer)
    }

    /// The certificate `peer` is paired with now, the one it was found with.
    /// - Throws: ``KDEConnectError/notPaired(_:reason:)`` when it no longer is (another certificate took its ID,
    ///   or it unpaired).
    func pairedCertificate(of peer: ForeignPeer) throws -> KDEConnectCertificate {
        guard
            let certificate = state.withLockedValue({ state -> KDEConnectCertificate? in
                guard let device = state.devices.device(peer), device.pairing.state == .paired else { return nil }
                return device.certificate
            })
        else {
            throw KDEConnectError.notPaired(
                peer.name,
                reason: "it is no longer linked with the certificate it paired with"
            )
        }
        return certificate
    }

    static func token() -> String {
        Hex.randomToken(byteCount: 16)
    }
}
