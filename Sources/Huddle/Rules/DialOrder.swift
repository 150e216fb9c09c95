public import HuddleWire

/// Which side of a pair dials when both could: the one with the lower (device ID, instance).
///
/// The one home of the rule. A session that connects to the peers it finds
/// (``PeerSessionConfiguration/connectsToFoundPeers``) and one that reconnects a dropped peer follow it, so a
/// pair never dials twice on purpose; when both dial anyway (one side dials by hand), the simultaneous-dial
/// tie-break keeps the connection the same rule picks (`docs/security.md` §3.4).
public enum DialOrder {
    /// Whether the side `local` dials `remote`.
    public static func localDials(
        local: (device: DeviceID, instance: PeerID),
        remote: (device: DeviceID, instance: PeerID)
    ) -> Bool {
        (local.device, local.instance.rawValue) < (remote.device, remote.instance.rawValue)
    }
}
