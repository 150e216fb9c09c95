/// A foreign protocol that keeps a device's clipboard in step with this machine's (KDE Connect): text only.
///
/// The device's copies arrive as ``ForeignEvent/clipboardReceived(_:from:copiedAt:)``; `huddle clip sync` orders
/// them with every other copy (docs/kdeconnect.md, "Clipboard").
public protocol ForeignClipboardService: ForeignPeerService {
    /// Whether `peer`'s clipboard is kept in step now: it is linked and paired.
    func sharesClipboard(with peer: ForeignPeer) -> Bool
    /// Puts `text` on `peer`'s clipboard. A fresh copy goes with `copiedAt` nil; the current item sent when a
    /// link starts goes with the time it was copied (milliseconds since 1970), so that the device keeps whichever
    /// of its own and this one is newer. Nothing happens when `peer` does not share its clipboard.
    func setClipboard(_ text: String, copiedAt: UInt64?, on peer: ForeignPeer)
}
