public import HuddleForeign
import HuddleKDEConnectWire
import NIOConcurrencyHelpers

/// The clipboard plugin's two packets (docs/kdeconnect.md, "Clipboard"): `kdeconnect.clipboard` carries a fresh
/// copy, `kdeconnect.clipboard.connect` the current item when a link starts, with the time it was copied.
extension KDEConnectService: ForeignClipboardService {
    public func sharesClipboard(with peer: ForeignPeer) -> Bool {
        state.withLockedValue { state in
            guard let device = state.devices.device(peer) else { return false }
            return device.link != nil && device.pairing.state == .paired
        }
    }

    public func setClipboard(_ text: String, copiedAt: UInt64?, on peer: ForeignPeer) {
        guard sharesClipboard(with: peer), text.utf8.count <= configuration.limits.maximumTextBytes,
            let certificate = state.withLockedValue({ $0.devices.device(peer)?.certificate })
        else { return }
        let packet: KDEConnectPacket
        if let copiedAt {
            packet = KDEConnectPacket(
                type: "kdeconnect.clipboard.connect",
                body: ["content": .string(text), "timestamp": .number(Double(copiedAt))]
            )
        } else {
            packet = KDEConnectPacket(type: "kdeconnect.clipboard", body: ["content": .string(text)])
        }
        send(packet, to: peer.id.value, certificate: certificate)
    }

    /// A paired device's clipboard packet. A `connect` packet without a time (0: the device does not know when
    /// its item was copied) is not a copy to take, as KDE Connect itself treats it.
    func clipboardArrived(_ packet: KDEConnectPacket, from peer: ForeignPeer) {
        guard let content = packet.body["content"]?.string, !content.isEmpty,
            content.utf8.count <= configuration.limits.maximumTextBytes
        else { return }
        if packet.type == "kdeconnect.clipboard.connect" {
            guard let timestamp = packet.body["timestamp"]?.int64, timestamp > 0 else { return }
            emit(.clipboardReceived(content, from: peer, copiedAt: UInt64(timestamp)))
        } else {
            emit(.clipboardReceived(content, from: peer, copiedAt: nil))
        }
    }
}
