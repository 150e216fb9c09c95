/// How a question about a foreign peer (an offer, a text, a pairing) is settled before anyone is asked.
///
/// The rule of docs/threat-model.md, "Foreign peers": `--yes` is trust on first use, and covers only a peer whose
/// certificate proves a fingerprint that is pinned or that nothing else is pinned under its name. A peer with no
/// certificate has nothing to pin, so `--yes` never takes from it; a changed certificate (or a pinned name shown
/// without a certificate) is always asked; and when the pins cannot be read nothing is taken at all, as with
/// Huddle's own trust store.
public enum ForeignConsent: Sendable, Hashable {
    /// Taken without a question (`--yes`, or a pinned certificate where the caller allows that).
    case yesWithoutAsking
    /// A person answers.
    case ask
    /// Refused without asking, for this reason.
    case refuse(String)

    /// - Parameters:
    ///   - trust: what the pins say about `peer`; nil when the pin file could not be read.
    ///   - peer: who asks.
    ///   - assumeYes: whether the user said `--yes`.
    ///   - pinnedNeedsNoQuestion: whether a pinned certificate is enough without `--yes` (LocalSend texts).
    public static func decide(
        trust: ForeignTrust?,
        peer: ForeignPeer,
        assumeYes: Bool,
        pinnedNeedsNoQuestion: Bool = false
    ) -> ForeignConsent {
        guard let trust else { return .refuse("the pin file cannot be read") }
        switch trust {
        case .changed: return .ask
        case .pinned: return assumeYes || pinnedNeedsNoQuestion ? .yesWithoutAsking : .ask
        case .unpinned: return assumeYes && peer.fingerprint != nil ? .yesWithoutAsking : .ask
        }
    }
}
