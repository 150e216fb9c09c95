import HuddleBase
public import HuddleForeign

/// What a send does with each foreign service's events while it runs: shows progress, says what a KDE Connect
/// pairing asks of the user there, answers its confirmation through `questions`, warns of a changed
/// certificate, and passes each device found on to `found`, for the rendezvous to look at once (a LocalSend
/// device is found when it answers the announcement, a few milliseconds after start).
public enum ForeignSendEvents {
    /// One task per service, each ending with the service's events or when cancelled.
    public static func follow(
        _ foreign: ForeignPeers,
        questions: ForeignQuestions,
        found: @escaping @Sendable (ForeignPeer) -> Void,
        show: @escaping @Sendable (ForeignProgress) -> Void,
        line: @escaping @Sendable (String) -> Void,
        warn: @escaping @Sendable (String) -> Void
    ) -> [Task<Void, Never>] {
        foreign.services.map { service in
            Task {
                for await event in service.events {
                    switch event {
                    case .progress(let step): show(step)
                    case .pairingStarted(let peer, let key):
                        line(
                            "* asked \(peer.protocol.rawValue) device \"\(peer.name)\" to pair: accept there if it shows "
                                + "verification key \(key)"
                        )
                    case .pairingConfirmation(let peer, let key):
                        Task { await questions.answerPairing(peer, key: key, accepted: true, via: service) }
                    case .paired(let peer): line("* paired with \(peer.protocol.rawValue) device \(peer.name)")
                    case .fingerprintChanged(let peer, let pinned): warn(ForeignTrustText.changed(peer, pinned: pinned))
                    case .found(let peer): found(peer)
                    default: continue
                    }
                }
            }
        }
    }
}
