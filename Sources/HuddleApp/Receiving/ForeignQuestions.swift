public import Foundation
public import HuddleForeign

/// The questions a LocalSend or KDE Connect device puts — an offer of files or a text, a request to pair — settled
/// by ``ForeignConsent`` or asked of a person, and answered to the device's service; a device is pinned on its
/// first accepted offer (docs/design.md, "Receiving").
public struct ForeignQuestions: Sendable {
    public let foreign: ForeignPeers
    /// `--yes`: trust on first use, never for a device whose certificate changed or that shows none.
    public let assumeYes: Bool
    public let ask: @Sendable (InboxQuestion) async -> Bool
    public let report: @Sendable (InboxEvent) -> Void

    public init(
        foreign: ForeignPeers,
        assumeYes: Bool,
        ask: @escaping @Sendable (InboxQuestion) async -> Bool,
        report: @escaping @Sendable (InboxEvent) -> Void
    ) {
        self.foreign = foreign
        self.assumeYes = assumeYes
        self.ask = ask
        self.report = report
    }

    /// Files or a text from a device: taken into `directory` when the user (or the rules) says yes, and the
    /// device pinned on that first accepted use.
    public func answer(_ offer: ForeignOffer, into directory: URL, via service: any ForeignPeerService) async {
        let trust = trust(of: offer.from)
        let question = InboxQuestion.offer(offer, trust: trust)
        let yes = await consent(question, peer: offer.from, trust: trust, isText: offer.text != nil)
        if yes, let trust, !trust.isPinned { pin(offer.from) }
        await service.answer(offer, with: yes ? .accept(into: directory) : .decline)
    }

    /// A device asks to pair (`accepted` false), or accepted this device's request (`accepted` true): the user
    /// compares the key both screens show.
    public func answerPairing(
        _ peer: ForeignPeer,
        key: String,
        accepted: Bool,
        via service: any ForeignPeerService
    ) async {
        let trust = trust(of: peer)
        let question = InboxQuestion.pairing(peer, key: key, trust: trust, accepted: accepted)
        service.answerPairing(peer, accept: await consent(question, peer: peer, trust: trust))
    }

    /// What the pins say about `peer`; nil (and reported) when they cannot be read.
    func trust(of peer: ForeignPeer) -> ForeignTrust? {
        do {
            return try foreign.pins.load().trust(of: peer)
        } catch {
            report(.pinsUnreadable(error: "\(error)"))
            return nil
        }
    }

    /// Settles `question` by ``ForeignConsent`` or asks it; a text from a pinned device needs no question.
    func consent(_ question: InboxQuestion, peer: ForeignPeer, trust: ForeignTrust?, isText: Bool = false) async -> Bool
    {
        switch ForeignConsent.decide(trust: trust, peer: peer, assumeYes: assumeYes, pinnedNeedsNoQuestion: isText) {
        case .ask:
            return await ask(question)
        case .yesWithoutAsking:
            report(.settled(question, .takenWithoutAsking))
            return true
        case .refuse(let reason):
            report(.settled(question, .refused(.foreignConsent(reason))))
            return false
        }
    }

    func pin(_ peer: ForeignPeer) {
        guard peer.fingerprint != nil else { return }
        do {
            if try foreign.pins.pin(peer) { report(.pinned(peer)) }
        } catch {
            report(.notPinned(peer, error: "\(error)"))
        }
    }
}
