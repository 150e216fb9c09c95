import Huddle
import HuddleApp
import HuddleForeign
import HuddleTransport
import HuddleWire

extension Daemon {
    /// `huddle peers` through the daemon: one reply per device here, then the paired devices away.
    func peers(_ replies: ControlReplies) async -> Int32 {
        for device in await devices() { await replies.send(ControlReply(device: device)) }
        return ExitStatus.success.rawValue
    }

    /// The devices here on every protocol, then the paired Huddle devices that are not.
    public func devices() async -> [DaemonDevice] {
        var devices: [DaemonDevice] = []
        var here: Set<String> = []
        let pins = try? foreign.pins.load()
        for (recipient, name) in await Rendezvous(session: session, foreign: foreign).present() {
            switch recipient {
            case .huddle(let peer):
                let device = await session.info(for: peer)?.deviceID
                if let device { here.insert(device.description) }
                let trust = device.flatMap { session.trustStore.record(for: $0) }.map(Self.words) ?? "not paired"
                devices.append(
                    DaemonDevice(
                        name: name,
                        sendName: name,
                        protocol: "huddle",
                        id: device?.shortID ?? "?",
                        trust: trust,
                        here: true
                    )
                )
            case .foreign(let peer, _):
                devices.append(
                    DaemonDevice(
                        name: peer.name,
                        sendName: "\(peer.protocol.key):\(peer.name)",
                        protocol: peer.protocol.key,
                        id: String(peer.fingerprint?.prefix(16) ?? "?"),
                        trust: (pins?.trust(of: peer) ?? .unpinned).phrase,
                        here: true
                    )
                )
            }
        }
        for record in session.trustStore.records where record.trust == .verified && !here.contains(record.deviceID) {
            devices.append(
                DaemonDevice(
                    name: record.displayName,
                    sendName: record.displayName,
                    protocol: "huddle",
                    id: String(record.deviceID.prefix(7)),
                    trust: "paired",
                    here: false
                )
            )
        }
        return devices
    }

    /// A Huddle device's trust in words.
    static func words(_ record: TrustRecord) -> String {
        switch record.trust {
        case .verified: "paired"
        case .tofu: "pinned on first use, not verified"
        case .blocked: "blocked"
        }
    }
}
